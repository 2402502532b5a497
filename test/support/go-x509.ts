// Den's webhook certificates as kube-apiserver sees them: test/support/go/x509check, a Go
// program using only crypto/x509, built once into a temporary folder. Node's OpenSSL accepts
// certificates Go refuses, so a certificate test that only Node parsed proves little.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'go', 'x509check', 'main.go');

export interface GoVerdict {
  ok: boolean;
  /** One line per finding: `verify <host>: ok`, or Go's error. */
  lines: string[];
}

export interface GoX509 {
  /** Parses the CA bundle and the serving certificate with Go and verifies the latter for each host. */
  check(caBundle: string, cert: string, hosts: string[], at?: Date): Promise<GoVerdict>;
  /** Removes the binary and the files written for it. */
  dispose(): void;
}

/** Builds the checker; fails with a message naming the package when `go` is not installed. */
export function buildGoX509(): GoX509 {
  try {
    execFileSync('go', ['version'], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`the Go toolchain is needed to check certificates with crypto/x509 as kube-apiserver does; install Debian's golang-go (test/system-deps.sh does): ${(err as Error).message}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'den-x509check-'));
  const binary = join(dir, 'x509check');
  try {
    execFileSync('go', ['build', '-o', binary, SOURCE], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`go build of ${SOURCE} failed: ${stderr || (err as Error).message}`);
  }
  let files = 0;
  return {
    check(caBundle, cert, hosts, at) {
      const n = files++;
      const caFile = join(dir, `ca-${n}.pem`);
      const certFile = join(dir, `tls-${n}.pem`);
      writeFileSync(caFile, caBundle);
      writeFileSync(certFile, cert);
      const args = ['-ca', caFile, '-cert', certFile, ...(at ? ['-at', at.toISOString().replace(/\.\d+Z$/, 'Z')] : []), ...hosts];
      return new Promise((resolve, reject) => {
        execFile(binary, args, (err, stdout) => {
          rmSync(caFile, { force: true });
          rmSync(certFile, { force: true });
          const code = (err as { code?: unknown } | null)?.code;
          if (err && code !== 1) reject(err);
          else resolve({ ok: !err, lines: stdout.trim().split('\n').filter(Boolean) });
        });
      });
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
