// den dotfiles: the person's dotfiles repository (REST /profile/dotfiles), cloned into ~/.dotfiles
// on each new workspace's first start, its install script run once (docs/personal-env.md).
import { CONTEXT_OPTIONS, OUTPUT_OPTIONS, parse, usage } from './args.js';
import { outputOf, UsageError, writeJson, type DevIo } from './io.js';
import { connect } from './session.js';

const USAGE = `den dotfiles set <URL>         keep your dotfiles repository for every new workspace
       den dotfiles show [-o json]    the repository you keep
       den dotfiles rm                forget it (workspaces that have ~/.dotfiles keep it)
A workspace clones it into ~/.dotfiles on its first start and runs the first of install.sh, install,
bootstrap.sh, bootstrap, script/bootstrap, setup.sh, setup, script/setup (or links its dot files).
A private repository clones with the token or SSH key you keep for its host (den git-credential set).`;

export async function dotfiles(argv: string[], io: DevIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') return usage(io, USAGE);
  if (verb === 'set') {
    const { values, positionals, help } = parse(rest, CONTEXT_OPTIONS, { min: 1, max: 1, names: 'the repository URL' });
    if (help) return usage(io, USAGE);
    const { api } = await connect(io, values);
    const saved = await api.request('PUT', '/profile/dotfiles', { body: { url: positionals[0] } });
    io.stderr.write(`dotfiles ${saved.url} kept; each new workspace clones them into ~/.dotfiles on its first start\n`);
    return 0;
  }
  if (verb === 'show') {
    const { values, help } = parse(rest, { ...CONTEXT_OPTIONS, ...OUTPUT_OPTIONS }, { min: 0, max: 0, names: '' });
    if (help) return usage(io, USAGE);
    const output = outputOf(values.output);
    const { api } = await connect(io, values);
    const kept = await api.request('GET', '/profile/dotfiles');
    if (output === 'json') writeJson(io, kept);
    else if (kept.url === null) io.stderr.write('no dotfiles repository yet (keep one with den dotfiles set <https or SSH URL>)\n');
    else io.stdout.write(`${kept.url}\n`);
    return 0;
  }
  if (verb === 'rm') {
    const { values, help } = parse(rest, CONTEXT_OPTIONS, { min: 0, max: 0, names: '' });
    if (help) return usage(io, USAGE);
    const { api } = await connect(io, values);
    await api.request('DELETE', '/profile/dotfiles');
    io.stderr.write('dotfiles repository forgotten\n');
    return 0;
  }
  throw new UsageError(`unknown dotfiles command "${verb}" (set, show or rm)`);
}
