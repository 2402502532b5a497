// den schedule: when a workspace starts and stops by itself (docs/schedules.md), one REST call
// (PATCH /workspaces/{name}/schedule); the server reads the words (`weekdays 08:30`) and the
// cluster's webhook checks the zone and the space's limit.
import { CONTEXT_OPTIONS, OUTPUT_OPTIONS, parse, usage } from './args.js';
import type { Json } from './api.js';
import { outputOf, writeJson, UsageError, type DevIo } from './io.js';
import { connect } from './session.js';

const USAGE = [
  "den schedule <name> [--autostart 'weekdays 08:30'] [--autostop 19:00] [--max-running 8h] [--tz Europe/Berlin] [-o json]",
  'den schedule <name> --clear      remove the whole schedule',
  'den schedule <name>              show it',
  "  times are HH:MM in --tz (your laptop's zone when absent), days weekdays, weekends, daily or Mon,Wed,Fri;",
  "  an empty value ('') removes that part; what is not named stays",
].join('\n');

/** The zone this laptop's clock is in, as Intl names it. */
function laptopZone(env: NodeJS.ProcessEnv): string | undefined {
  const zone = env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && zone.includes('/') ? zone : zone === 'UTC' ? 'UTC' : undefined;
}

function ruleText(rule: Json | undefined): string {
  if (!rule?.time) return 'none';
  const days = (rule.days ?? []).join(',');
  const words: Record<string, string> = { '': 'daily', 'Mon,Tue,Wed,Thu,Fri,Sat,Sun': 'daily', 'Mon,Tue,Wed,Thu,Fri': 'weekdays', 'Sat,Sun': 'weekends' };
  return `${words[days] ?? days} ${rule.time}`;
}

/** What `den schedule <name>` prints: one line per part. */
function scheduleLines(schedule: Json | undefined): string {
  const s = schedule ?? {};
  return [
    `autostart    ${ruleText(s.autostart)}`,
    `autostop     ${ruleText(s.autostop)}`,
    `max running  ${s.maxRunning ?? 'none'}`,
    `time zone    ${s.timeZone ?? 'none'}`,
  ].join('\n') + '\n';
}

export async function schedule(argv: string[], io: DevIo): Promise<number> {
  const options = {
    ...CONTEXT_OPTIONS,
    ...OUTPUT_OPTIONS,
    autostart: { type: 'string' },
    autostop: { type: 'string' },
    'max-running': { type: 'string' },
    tz: { type: 'string' },
    clear: { type: 'boolean' },
  } as const;
  const { values, positionals, help } = parse(argv, options, { min: 1, max: 1, names: 'the workspace name' });
  if (help) return usage(io, USAGE);
  const name = positionals[0]!;
  const parts = { autostart: values.autostart, autostop: values.autostop, max_running: values['max-running'], time_zone: values.tz };
  const named = Object.values(parts).some((v) => v !== undefined);
  if (values.clear && named) throw new UsageError('--clear removes the whole schedule: give it alone');
  const output = outputOf(values.output);
  const { api } = await connect(io, values);
  const path = `/workspaces/${encodeURIComponent(name)}`;
  if (!values.clear && !named) {
    const ws = await api.request('GET', path);
    if (output === 'json') writeJson(io, ws.spec?.schedule ?? {});
    else io.stdout.write(scheduleLines(ws.spec?.schedule));
    return 0;
  }
  const body: Json = values.clear ? { autostart: '', autostop: '', max_running: '', time_zone: '' } : Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined));
  // A time of day needs a zone: the laptop's, unless one is given or the workspace has one.
  if (!values.clear && body.time_zone === undefined && (body.autostart || body.autostop)) {
    const current = await api.request('GET', path);
    const zone = laptopZone(io.env);
    if (!current.spec?.schedule?.timeZone && zone) body.time_zone = zone;
  }
  const answer = await api.request('PATCH', `${path}/schedule`, { body });
  if (output === 'json') writeJson(io, answer);
  else io.stdout.write(values.clear ? `workspace ${name}: schedule removed\n` : `workspace ${name}:\n${scheduleLines(answer.spec?.schedule)}`);
  return 0;
}
