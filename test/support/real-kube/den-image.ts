// Den's own image for the one-node cluster of ../shared/kube/cluster/up.sh, built without a Docker
// daemon: `den` bundled by esbuild from this checkout (the roles and commands load lazily, so
// `den clone-source` needs none of the native addons), this project's Node binary and the shared
// libraries it links, packed as a docker-archive and imported into the node's containerd. Its
// entrypoint is `node den.js`, as the Dockerfile's is, so the pod's `args` are den's.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const execFileAsync = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..', '..');
/**
 * Left out of the bundle: the native addons. re2 is the manager's and server's only; ssh2 (the
 * clone over SSH) is bundled, and without its optional bindings it uses its JavaScript ciphers.
 */
const NATIVE = ['re2', 'cpu-features', '*.node'];

/** The shared objects `ldd` says the binary needs, and its loader. */
async function linkedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await execFileAsync('ldd', [binary]);
  return [...stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}

/** The files of the image's one layer, in `rootfs`. */
async function fillRootfs(rootfs: string): Promise<void> {
  const app = join(rootfs, 'opt', 'den');
  await build({
    entryPoints: [join(ROOT, 'cli', 'den.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    outdir: join(app, 'app'),
    external: NATIVE,
    logLevel: 'error',
    // CommonJS packages (ssh2) read require, __dirname and __filename, which an ES module has not.
    banner: { js: "import { createRequire as __denRequire } from 'node:module'; const require = __denRequire(import.meta.url); const __dirname = import.meta.dirname; const __filename = import.meta.filename;" },
  });
  await writeFile(join(app, 'app', 'package.json'), JSON.stringify({ type: 'module' }));
  await copyFile(process.execPath, join(app, 'node'));
  await chmod(join(app, 'node'), 0o755);
  for (const lib of await linkedLibraries(process.execPath)) {
    await mkdir(join(rootfs, dirname(lib)), { recursive: true });
    await copyFile(lib, join(rootfs, lib));
  }
  await mkdir(join(rootfs, 'tmp'), { recursive: true });
  await chmod(join(rootfs, 'tmp'), 0o1777);
  await mkdir(join(rootfs, 'dev'), { recursive: true });
  await mkdir(join(rootfs, 'etc'), { recursive: true });
  await writeFile(join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
}

/**
 * Builds Den's image from this checkout and imports it as `tag` into the containerd whose
 * socket is given (up.sh's `$KC/containerd/containerd.sock`, namespace k8s.io, where the kubelet
 * looks). Pods must use it with `imagePullPolicy: Never`.
 */
export async function importDenImage(tag: string, containerdSocket: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'den-image-'));
  try {
    const rootfs = join(work, 'rootfs');
    await mkdir(rootfs);
    await fillRootfs(rootfs);
    const layer = join(work, 'layer.tar');
    await execFileAsync('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', rootfs, '-cf', layer, '.'], { maxBuffer: 1 << 20 });
    const diffId = `sha256:${createHash('sha256').update(await readFile(layer)).digest('hex')}`;
    const config = JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Entrypoint: ['/opt/den/node', '/opt/den/app/den.js'], Env: ['PATH=/opt/den:/usr/bin:/bin', 'NODE_ENV=production'], WorkingDir: '/' },
      rootfs: { type: 'layers', diff_ids: [diffId] },
    });
    const configName = `${createHash('sha256').update(config).digest('hex')}.json`;
    await writeFile(join(work, configName), config);
    await writeFile(join(work, 'manifest.json'), JSON.stringify([{ Config: configName, RepoTags: [tag], Layers: ['layer.tar'] }]));
    const archive = join(work, 'den.tar');
    await execFileAsync('tar', ['-C', work, '-cf', archive, 'manifest.json', configName, 'layer.tar']);
    await execFileAsync('ctr', ['--address', containerdSocket, '-n', 'k8s.io', 'images', 'import', archive], { maxBuffer: 1 << 20 });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
