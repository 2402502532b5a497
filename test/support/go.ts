// The small Go programs under test/support/go/, each built once into a temporary folder: they
// check what Den hands to kube-apiserver with the Go packages kube-apiserver itself uses.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface GoTool {
  /** Path of the built program. */
  binary: string;
  /** A folder for the tool's input files, removed by `dispose`. */
  dir: string;
  dispose(): void;
}

/** Builds test/support/go/<name>/main.go; fails with a message naming the package when `go` is not installed. */
export function buildGoTool(name: 'x509check' | 'regexcheck'): GoTool {
  try {
    execFileSync('go', ['version'], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`the Go toolchain is needed to check what Den hands to kube-apiserver with Go's own packages; install Debian's golang-go (test/system-deps.sh does): ${(err as Error).message}`);
  }
  const source = join(HERE, 'go', name, 'main.go');
  const dir = mkdtempSync(join(tmpdir(), `den-${name}-`));
  const binary = join(dir, name);
  try {
    execFileSync('go', ['build', '-o', binary, source], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`go build of ${source} failed: ${stderr || (err as Error).message}`);
  }
  return { binary, dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
