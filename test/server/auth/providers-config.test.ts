// Identity provider configuration: the file, the variables, presets, and one line per mistake.
import { expect } from 'chai';
import { loadProviders, ProviderConfigError } from '../../../server/auth/providers/config.js';

const files: Record<string, string> = {
  '/etc/den/google-secret': 'g-secret\n',
  '/etc/den/empty': '',
};
const readFile = (path: string): string => {
  if (path in files) return files[path]!;
  throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
};

function problems(file: string, env: Record<string, string> = {}): string[] {
  try {
    loadProviders(file ? '/etc/den/providers.yaml' : '', env, (p) => (p === '/etc/den/providers.yaml' ? file : readFile(p)));
  } catch (err) {
    if (err instanceof ProviderConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ProviderConfigError');
}

describe('identity provider configuration', () => {
  it('reads every preset from the file with its defaults, the secret from a file or a variable', () => {
    const yaml = `providers:
  - { name: google, preset: google, clientId: g-id, clientSecretFile: /etc/den/google-secret }
  - { name: work, preset: entra, tenant: organizations, clientId: e-id, clientSecretEnv: ENTRA_SECRET, trustedEmailDomains: [Contoso.com] }
  - { name: gitlab, preset: gitlab, baseUrl: https://gitlab.example.com/, clientId: l-id, clientSecretEnv: ENTRA_SECRET }
  - { name: keycloak, issuer: https://sso.example.com/realms/dev, clientId: k-id, clientSecretEnv: ENTRA_SECRET, label: Company SSO }
  - { name: ghe, kind: github, baseUrl: https://github.example.com, clientId: h-id, clientSecretEnv: ENTRA_SECRET }
  - { name: github, kind: github, clientId: h2-id, clientSecretEnv: ENTRA_SECRET }
`;
    const providers = loadProviders('/etc/den/providers.yaml', { ENTRA_SECRET: 'e-secret' }, (p) => (p === '/etc/den/providers.yaml' ? yaml : readFile(p)));
    expect(providers.map((p) => [p.name, p.kind === 'oidc' ? p.issuer : p.apiUrl, p.label, p.clientSecret, p.scopes.join(' ')])).to.deep.equal([
      ['google', 'https://accounts.google.com', 'Google', 'g-secret', 'openid email'],
      ['work', 'https://login.microsoftonline.com/organizations/v2.0', 'Microsoft', 'e-secret', 'openid email profile'],
      ['gitlab', 'https://gitlab.example.com', 'GitLab', 'e-secret', 'openid email'],
      ['keycloak', 'https://sso.example.com/realms/dev', 'Company SSO', 'e-secret', 'openid email'],
      ['ghe', 'https://github.example.com/api/v3', 'GitHub', 'e-secret', 'read:user user:email'],
      ['github', 'https://api.github.com', 'GitHub', 'e-secret', 'read:user user:email'],
    ]);
    expect(providers[1]).to.deep.include({ trustedEmailDomains: ['contoso.com'] });
  });

  it('reads providers from DEN_OIDC_<NAME>_* and DEN_GITHUB_<NAME>_* variables', () => {
    const providers = loadProviders('', {
      DEN_OIDC_MY_CORP_ISSUER: 'https://sso.example.com',
      DEN_OIDC_MY_CORP_CLIENT_ID: 'corp',
      DEN_OIDC_MY_CORP_CLIENT_SECRET_FILE: '/etc/den/google-secret',
      DEN_OIDC_MY_CORP_SCOPES: 'openid,email,groups',
      DEN_GITHUB_PUBLIC_CLIENT_ID: 'gh',
      DEN_GITHUB_PUBLIC_CLIENT_SECRET: 'gh-secret',
    }, readFile);
    expect(providers.map((p) => [p.name, p.kind, p.clientId, p.clientSecret, p.scopes.join(' ')])).to.deep.equal([
      ['public', 'github', 'gh', 'gh-secret', 'read:user user:email'],
      ['my-corp', 'oidc', 'corp', 'g-secret', 'openid email groups'],
    ]);
  });

  it('reports every mistake, one line each, naming the provider and the field, never a secret', () => {
    const yaml = `providers:
  - { name: Bad_Name, clientId: x, clientSecretFile: /etc/den/google-secret, issuer: https://a.example }
  - { name: plain, issuer: http://sso.example.com, clientId: x, clientSecretFile: /etc/den/missing }
  - { name: inline, preset: google, clientId: x, clientSecret: hunter2 }
  - { name: entra, preset: entra, clientId: x, clientSecretFile: /etc/den/empty, trustedEmailDomains: [not a domain] }
  - { name: generic, clientId: x, clientSecretEnv: NOPE, colour: blue }
  - { name: gh, kind: github, preset: google, clientSecretFile: /etc/den/google-secret }
  - { name: plain, issuer: https://a.example, clientId: y, clientSecretFile: /etc/den/google-secret }
`;
    const lines = problems(yaml, { DEN_OIDC_X_COLOUR: 'blue' });
    expect(lines).to.deep.equal([
      'DEN_OIDC_X_COLOUR: not a provider setting (DEN_OIDC_<NAME>_<KEY> or DEN_GITHUB_<NAME>_<KEY>, KEY one of PRESET, LABEL, CLIENT_ID, CLIENT_SECRET_FILE, CLIENT_SECRET, SCOPES, ISSUER, TENANT, BASE_URL, TRUSTED_EMAIL_DOMAINS)',
      'identity provider Bad_Name (/etc/den/providers.yaml providers[0]): name must be 1-32 of a-z 0-9 - (it is part of /login/<name> and /callback/<name>), got "Bad_Name"',
      'identity provider plain (/etc/den/providers.yaml providers[1]): clientSecretFile /etc/den/missing cannot be read (ENOENT)',
      "identity provider plain (/etc/den/providers.yaml providers[1]): issuer must be an https URL (http only for localhost), got 'http://sso.example.com'",
      'identity provider inline (/etc/den/providers.yaml providers[2]): clientSecret is not read from the configuration; put the secret in a file (clientSecretFile) or a variable (clientSecretEnv)',
      'identity provider inline (/etc/den/providers.yaml providers[2]): a client secret is required: set clientSecretFile (a file holding it) or clientSecretEnv (a variable holding it)',
      'identity provider entra (/etc/den/providers.yaml providers[3]): clientSecretFile /etc/den/empty is empty',
      'identity provider entra (/etc/den/providers.yaml providers[3]): tenant is required: the directory (tenant) id, a verified domain, or organizations / common for any work account',
      "identity provider entra (/etc/den/providers.yaml providers[3]): trustedEmailDomains entry 'not a domain' is not a domain name",
      'identity provider generic (/etc/den/providers.yaml providers[4]): unknown field colour (known: name, kind, preset, label, clientId, clientSecretFile, clientSecretEnv, scopes, issuer, tenant, baseUrl, trustedEmailDomains)',
      'identity provider generic (/etc/den/providers.yaml providers[4]): clientSecretEnv names NOPE, which is not set',
      'identity provider generic (/etc/den/providers.yaml providers[4]): issuer is required for preset generic (Keycloak: https://host/realms/<realm>)',
      'identity provider gh (/etc/den/providers.yaml providers[5]): preset applies to kind oidc only',
      'identity provider gh (/etc/den/providers.yaml providers[5]): clientId is required',
    ]);
    expect(lines.join('\n')).to.not.contain('hunter2').and.not.contain('g-secret');
  });

  it('refuses two providers with one name, a file that is not YAML, and one without a providers list', () => {
    const twice = 'providers:\n  - { name: a, issuer: https://a.example, clientId: x, clientSecretFile: /etc/den/google-secret }\n  - { name: a, issuer: https://b.example, clientId: y, clientSecretFile: /etc/den/google-secret }\n';
    expect(problems(twice)).to.deep.equal(['identity provider a (/etc/den/providers.yaml providers[1]): the name is already used by /etc/den/providers.yaml providers[0]']);
    expect(problems('providers: [')[0]).to.match(/^\/etc\/den\/providers\.yaml: not valid YAML: /);
    expect(problems('google: {}')).to.deep.equal(['/etc/den/providers.yaml: expected a mapping with one key, providers: a list of identity providers']);
  });
});
