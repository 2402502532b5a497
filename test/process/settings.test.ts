import { expect } from 'chai';
import { defaultText, parsers, readSettings, SettingsError, settingsHelp, type Setting } from '../../process/settings.js';

const spec = {
  listen: { flag: 'listen', env: 'DEN_LISTEN', describe: 'address to listen on', parse: parsers.address, default: { host: '0.0.0.0', port: 8080 } } as Setting<{ host: string; port: number }>,
  baseUrl: { flag: 'base-url', env: 'DEN_BASE_URL', describe: 'public address', parse: parsers.url } as Setting<string>,
  localAuth: { flag: 'local-auth', env: 'DEN_LOCAL_AUTH', describe: 'local logins', parse: parsers.boolean, default: true, boolean: true } as Setting<boolean>,
  ttl: { flag: 'token-ttl', env: 'DEN_TOKEN_TTL', describe: 'minted token lifetime', parse: parsers.duration, default: 600_000, show: '10m' } as Setting<number>,
};

describe('readSettings', () => {
  it('takes flags over DEN_* variables over defaults', () => {
    const s = readSettings(spec, ['--base-url', 'https://den.example.com/', '--token-ttl=15m'], { DEN_LISTEN: '127.0.0.1:9000', DEN_BASE_URL: 'https://ignored.example.com' });
    expect(s).to.deep.equal({ listen: { host: '127.0.0.1', port: 9000 }, baseUrl: 'https://den.example.com', localAuth: true, ttl: 900_000 });
  });

  it('reads a boolean switch without a value', () => {
    expect(readSettings(spec, ['--local-auth=false', '--base-url', 'http://x'], {}).localAuth).to.equal(false);
    expect(readSettings(spec, ['--local-auth', '--base-url', 'http://x'], { DEN_LOCAL_AUTH: 'false' }).localAuth).to.equal(true);
  });

  const refusals: [string, string[], Record<string, string>, string][] = [
    ['a missing required setting', [], {}, '--base-url (DEN_BASE_URL) is required: public address'],
    ['a malformed address', ['--listen', 'nowhere', '--base-url', 'http://x'], {}, "--listen (DEN_LISTEN): expected host:port, got 'nowhere'"],
    ['a malformed variable', [], { DEN_BASE_URL: 'ftp://x' }, "--base-url (DEN_BASE_URL): expected an http or https URL, got 'ftp://x'"],
    ['an unknown flag', ['--colour', 'red'], {}, 'unknown flag --colour (see --help)'],
    ['a flag without its value', ['--base-url'], {}, '--base-url needs a value'],
    ['a bad duration', ['--token-ttl', 'soon', '--base-url', 'http://x'], {}, "--token-ttl (DEN_TOKEN_TTL): expected a duration such as 30s, 15m or 4h, got 'soon'"],
  ];
  for (const [what, argv, env, message] of refusals) {
    it(`stops with one line naming the setting for ${what}`, () => {
      expect(() => readSettings(spec, argv, env)).to.throw(SettingsError, message);
    });
  }

  it('lists every flag with its variable and default in the help', () => {
    const help = settingsHelp(spec);
    expect(help).to.include('--listen VALUE  [DEN_LISTEN]');
    expect(help).to.include('--base-url VALUE  [DEN_BASE_URL]\n      public address (required)');
    expect(help).to.include('--local-auth  [DEN_LOCAL_AUTH]');
    expect(help).to.include('address to listen on (default 0.0.0.0:8080)');
    expect(help).to.include('minted token lifetime (default 10m)');
    expect(help).to.include('local logins (default true)');
  });

  it('shows defaults as a person would type them', () => {
    const address = (host: string, port: number): Setting<unknown> => ({ ...spec.listen, default: { host, port } });
    expect(defaultText(address('::1', 2222))).to.equal('[::1]:2222');
    expect(defaultText(spec.ttl)).to.equal('10m');
    expect(defaultText({ ...spec.ttl, show: undefined })).to.equal('600000');
    expect(defaultText({ ...spec.baseUrl, default: 'svc-system' })).to.equal('svc-system');
    expect(defaultText(spec.baseUrl)).to.equal(undefined);
  });
});

describe('parsers', () => {
  it('reads IPv6 and wildcard listen addresses', () => {
    expect(parsers.address('[::1]:2222')).to.deep.equal({ host: '::1', port: 2222 });
    expect(parsers.address(':2222')).to.deep.equal({ host: '0.0.0.0', port: 2222 });
    expect(() => parsers.address('host:70000')).to.throw('expected host:port');
  });

  it('bounds whole numbers', () => {
    expect(parsers.integer(1, 10)('7')).to.equal(7);
    expect(() => parsers.integer(1, 10)('0')).to.throw('from 1 to 10');
    expect(() => parsers.integer(1, 10)('2.5')).to.throw('whole number');
  });
});
