// SPEC 1.4: extra volumes must not shadow the home volume, and every mount must resolve.
import { posix } from 'node:path';
import { HOME_VOLUME } from '../../infra/children/workspace/props.js';
import type { Volume, VolumeMount } from './objects.js';
import type { Violation } from './violations.js';

function normalizePath(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

/**
 * A mount at the home path, or at any directory above it (`/home`, `/`), would hide the home
 * volume: the container would start with an empty or foreign home directory.
 */
function shadowsHome(mountPath: string, homePath: string): boolean {
  const mount = normalizePath(mountPath);
  const home = normalizePath(homePath);
  return mount === home || mount === '/' || home.startsWith(`${mount}/`);
}

export function checkVolumes(volumes: unknown, mounts: unknown, homePath: string): Violation[] {
  const violations: Violation[] = [];
  const names = new Set<string>();
  const volumeList = Array.isArray(volumes) ? (volumes as Volume[]) : [];
  const mountList = Array.isArray(mounts) ? (mounts as VolumeMount[]) : [];
  if (volumes !== undefined && volumes !== null && !Array.isArray(volumes)) {
    violations.push({ rule: 'volume-mount', field: 'spec.volumes', message: 'must be a list of volumes' });
  }
  if (mounts !== undefined && mounts !== null && !Array.isArray(mounts)) {
    violations.push({ rule: 'volume-mount', field: 'spec.volumeMounts', message: 'must be a list of volume mounts' });
  }
  volumeList.forEach((volume, i) => {
    const name = volume?.name;
    const field = `spec.volumes[${i}].name`;
    if (typeof name !== 'string' || name === '') {
      violations.push({ rule: 'volume-mount', field, message: 'a volume needs a name' });
    } else if (name === HOME_VOLUME) {
      violations.push({ rule: 'home-volume', field, message: `"${HOME_VOLUME}" is the name of the home volume Den mounts at ${homePath}; choose another name` });
    } else if (names.has(name)) {
      violations.push({ rule: 'volume-mount', field, message: `volume name "${name}" is used twice` });
    } else {
      names.add(name);
    }
  });
  const paths = new Set<string>();
  mountList.forEach((mount, i) => {
    const field = `spec.volumeMounts[${i}]`;
    const name = mount?.name;
    if (typeof name !== 'string' || !names.has(name)) {
      const known = names.size ? `volumes: ${[...names].join(', ')}` : 'spec.volumes is empty';
      violations.push({ rule: 'volume-mount', field: `${field}.name`, message: `mount does not resolve: no volume named "${String(name ?? '')}" in spec.volumes (${known})` });
    }
    const mountPath = mount?.mountPath;
    if (typeof mountPath !== 'string' || !mountPath.startsWith('/')) {
      violations.push({ rule: 'volume-mount', field: `${field}.mountPath`, message: `must be an absolute path (got "${String(mountPath ?? '')}")` });
      return;
    }
    if (shadowsHome(mountPath, homePath)) {
      violations.push({ rule: 'home-volume', field: `${field}.mountPath`, message: `"${mountPath}" would hide the home volume mounted at ${homePath}; mount somewhere else (inside ${homePath} is fine)` });
    }
    const normalized = normalizePath(mountPath);
    if (paths.has(normalized)) {
      violations.push({ rule: 'volume-mount', field: `${field}.mountPath`, message: `"${mountPath}" is mounted twice` });
    }
    paths.add(normalized);
  });
  return violations;
}
