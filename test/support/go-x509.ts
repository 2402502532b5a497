// Den's webhook certificates as kube-apiserver sees them: test/support/go/x509check, a Go
// program using only crypto/x509, built once into a temporary folder. Node's OpenSSL accepts
// certificates Go refuses, so a certificate test that only Node parsed proves little.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGoTool } from './go.js';

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

/** Builds the checker (see buildGoTool). */
export function buildGoX509(): GoX509 {
  const { binary, dir, dispose } = buildGoTool('x509check');
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
    dispose,
  };
}
