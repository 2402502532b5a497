// Renders the install chart with given settings; the cdk8s app and the tests share it.
import { App, YamlOutputType } from 'cdk8s';
import { DenInstallChart } from './chart.js';
import type { InstallSettings } from './settings.js';

/** Writes dist/den.k8s.yaml (or into `outdir`) and returns the folder. */
export function synthInstall(settings: InstallSettings, outdir?: string): string {
  const app = new App({ yamlOutputType: YamlOutputType.FILE_PER_CHART, ...(outdir === undefined ? {} : { outdir }) });
  new DenInstallChart(app, 'den', settings);
  app.synth();
  return app.outdir;
}

/** The manifests as JSON objects, in the order kubectl applies them. */
export function renderInstall(settings: InstallSettings): Record<string, unknown>[] {
  const app = new App();
  const chart = new DenInstallChart(app, 'den', settings);
  return chart.toJson() as Record<string, unknown>[];
}
