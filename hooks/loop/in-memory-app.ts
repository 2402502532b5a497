// The App the hooks render children in. It is never synthesized, so nothing is written to
// disk; outdir and recordConstructMetadata are set so it reads no environment variables.
import { App } from 'cdk8s';

export function inMemoryApp(): App {
  return new App({ outdir: 'dist', recordConstructMetadata: false });
}
