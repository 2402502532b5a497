import { expect } from 'chai';
import type { Workspace } from '../../../hooks/admission/objects.js';
import { reviewWorkspaceValidation } from '../../../hooks/admission/webhooks.js';
import { generateTestKeys, type TestKeys } from './keys.js';
import { reviewOf, viewOf, type ViewContent } from './reviews.js';
import { aliceWorld, claim, GPU, NOW, userSpace, workspace } from './world.js';

interface Expect {
  allowed: boolean;
  code?: number;
  reason?: string;
  message?: RegExp;
  warning?: RegExp;
}

describe('validating webhook on Workspace', () => {
  let keys: TestKeys;
  before(() => {
    keys = generateTestKeys();
  });

  function validate(object: Workspace, opts: { oldObject?: Workspace; operation?: 'CREATE' | 'UPDATE'; world?: (w: ViewContent) => ViewContent; namespace?: string } = {}) {
    const base = aliceWorld(keys.ed25519);
    const world = opts.world ? opts.world(base) : base;
    const review = reviewOf({ kind: 'Workspace', operation: opts.operation ?? (opts.oldObject ? 'UPDATE' : 'CREATE'), object, oldObject: opts.oldObject, namespace: opts.namespace });
    return reviewWorkspaceValidation(review.request, viewOf(world), { gpuResource: GPU }, NOW);
  }

  function expectAnswer(response: ReturnType<typeof validate>, want: Expect) {
    expect(response.uid).to.equal('97b721a1-1f3f-436d-aa64-6a39322aab2e');
    expect(response.allowed, response.status?.message).to.equal(want.allowed);
    if (want.code) expect(response.status?.code).to.equal(want.code);
    if (want.reason) expect(response.status?.reason).to.equal(want.reason);
    if (want.message) expect(response.status?.message).to.match(want.message);
    if (want.warning) expect(response.warnings?.join('\n')).to.match(want.warning);
    if (!response.allowed) expectWordsForAPerson(response.status!);
  }

  /** Every refused field carries the rule's words for a person, not the cluster's text again (the pages show them beside the field). */
  function expectWordsForAPerson(status: { message: string; details?: { causes: { field: string; message: string }[] } }) {
    const causes = status.details?.causes ?? [];
    expect(causes, status.message).to.not.be.empty;
    for (const cause of causes) {
      expect(cause.message, cause.field).to.match(/^[A-Z"]/);
      expect(status.message, cause.field).to.not.contain(cause.message);
    }
  }

  const withKey = (spec: Workspace['spec'] = {}) => (k: TestKeys) => workspace('dev', { sshAuthorizedKeys: [k.ed25519], ...spec });
  const invalid = (message: RegExp): Expect => ({ allowed: false, code: 422, reason: 'Invalid', message });
  const overQuota = (message: RegExp): Expect => ({ allowed: false, code: 403, reason: 'Forbidden', message });
  const gpu = (request: string | undefined, limit: string | undefined) => ({
    resources: { ...(request ? { requests: { [GPU]: request } } : {}), ...(limit ? { limits: { [GPU]: limit } } : {}) },
  });

  type CreateCase = [string, (k: TestKeys) => Workspace, Expect, ((w: ViewContent) => ViewContent)?];
  const creates: CreateCase[] = [
    ['admits a valid workspace', withKey({ resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } }), { allowed: true }],
    ['admits every accepted key type', (k) => workspace('dev', { sshAuthorizedKeys: [k.ed25519, k.rsa, k.ecdsa256, k.ecdsa384, k.ecdsa521, k.skEd25519, k.skEcdsa] }), { allowed: true }],
    ['refuses SSH keys that are not a list, with words for a person', () => workspace('dev', { sshAuthorizedKeys: 'ssh-ed25519 AAAA' as unknown as string[] }), invalid(/^spec\.sshAuthorizedKeys: must be a list of SSH public keys$/)],
    ['refuses an image that does not exist', withKey({ imageRef: { name: 'nope' } }), invalid(/^spec\.imageRef\.name: WorkspaceImage "nope" does not exist$/)],
    ['refuses a deprecated image', withKey({ imageRef: { name: 'retired' } }), invalid(/^spec\.imageRef\.name: WorkspaceImage "retired" is deprecated and no longer offered for new workspaces$/)],
    ['refuses an image past its deprecateAt', withKey({ imageRef: { name: 'sunset' } }), invalid(/WorkspaceImage "sunset" was withdrawn at 2026-05-01T00:00:00Z \(spec\.deprecateAt\)/)],
    ['admits an image before its deprecateAt, with a warning', withKey({ imageRef: { name: 'sunrise' } }), { allowed: true, warning: /withdrawn at 2026-09-01T00:00:00Z/ }],
    ['refuses an image running as uid 0 without allowRoot', withKey({ imageRef: { name: 'rooty' } }), invalid(/WorkspaceImage "rooty" runs as uid 0 \(spec\.runAsUser: 0\) but does not set spec\.allowRoot/)],
    ['admits an image running as uid 0 with allowRoot', withKey({ imageRef: { name: 'root-allowed' } }), { allowed: true }],
    ['refuses a key that does not parse, naming its index', (k) => workspace('dev', { sshAuthorizedKeys: [k.ed25519, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG5vdCBhIGtleSBhdCBhbGw='] }), invalid(/^spec\.sshAuthorizedKeys\[1\]: not a valid SSH public key: the key blob is corrupt$/)],
    ['refuses a DSA key', (k) => workspace('dev', { sshAuthorizedKeys: [k.dsa] }), invalid(/spec\.sshAuthorizedKeys\[0\]: not a valid SSH public key: key type "ssh-dss" is not accepted/)],
    ['refuses a running workspace without a key', () => workspace('dev', {}), invalid(/^spec\.sshAuthorizedKeys: a running workspace \(spec\.running: true, the default\) needs at least one SSH key/)],
    ['admits a stopped workspace without a key', () => workspace('dev', { running: false }), { allowed: true }],
    ['refuses a volume named like the home volume', withKey({ volumes: [{ name: 'home', emptyDir: {} }] }), invalid(/^spec\.volumes\[0\]\.name: "home" is the name of the home volume Den mounts at \/home\/dev/)],
    ['refuses a mount at the home path', withKey({ volumes: [{ name: 'data', emptyDir: {} }], volumeMounts: [{ name: 'data', mountPath: '/home/dev/' }] }), invalid(/^spec\.volumeMounts\[0\]\.mountPath: "\/home\/dev\/" would hide the home volume mounted at \/home\/dev/)],
    ['refuses a mount above the home path', withKey({ volumes: [{ name: 'data', emptyDir: {} }], volumeMounts: [{ name: 'data', mountPath: '/home' }] }), invalid(/"\/home" would hide the home volume/)],
    ['reads the home path from the image', withKey({ imageRef: { name: 'custom-home' }, volumes: [{ name: 'data', emptyDir: {} }], volumeMounts: [{ name: 'data', mountPath: '/work' }] }), invalid(/"\/work" would hide the home volume mounted at \/work/)],
    ['admits a mount inside the home path', withKey({ volumes: [{ name: 'data', emptyDir: {} }], volumeMounts: [{ name: 'data', mountPath: '/home/dev/data' }] }), { allowed: true }],
    ['refuses a mount that resolves to no volume', withKey({ volumes: [{ name: 'data', emptyDir: {} }], volumeMounts: [{ name: 'cache', mountPath: '/cache' }] }), invalid(/^spec\.volumeMounts\[0\]\.name: mount does not resolve: no volume named "cache" in spec\.volumes \(volumes: data\)$/)],
    ['refuses a volume named like the git credentials volume', withKey({ volumes: [{ name: 'den-git-credentials', emptyDir: {} }] }), invalid(/^spec\.volumes\[0\]\.name: "den-git-credentials" is the name of the volume Den mounts your git credentials from; choose another name/)],
    ['refuses a mount where Den mounts the git credentials', withKey({ volumes: [{ name: 'data', emptyDir: {} }], volumeMounts: [{ name: 'data', mountPath: '/var/run/secrets/den.dev/git' }] }), invalid(/^spec\.volumeMounts\[0\]\.mountPath: "\/var\/run\/secrets\/den\.dev\/git" is where Den mounts your git credentials; mount somewhere else/)],
    ['refuses a mount of the home volume by name', withKey({ volumeMounts: [{ name: 'home', mountPath: '/srv' }] }), invalid(/no volume named "home" in spec\.volumes \(spec\.volumes is empty\)/)],
    ['refuses a request above its limit', withKey({ resources: { requests: { cpu: '1500m' }, limits: { cpu: '1' } } }), invalid(/^spec\.resources\.requests\.cpu: a request must not exceed its limit \(requests\.cpu=1500m > limits\.cpu=1\)$/)],
    ['compares memory across suffixes', withKey({ resources: { requests: { memory: '1Gi' }, limits: { memory: '1000Mi' } } }), invalid(/requests\.memory=1Gi > limits\.memory=1000Mi/)],
    ['refuses a GPU request different from its limit', withKey(gpu('1', '2')), invalid(/spec\.resources\.requests\.nvidia\.com\/gpu: nvidia\.com\/gpu is an extended resource: its request must equal its limit \(requests\.nvidia\.com\/gpu=1, limits\.nvidia\.com\/gpu=2\)/)],
    ['refuses a GPU request without a limit', withKey(gpu('1', undefined)), invalid(/spec\.resources\.limits\.nvidia\.com\/gpu: .*set its limit equal to its request/)],
    ['admits a GPU with request equal to limit', withKey(gpu('1', '1')), { allowed: true }],
    ['admits a GPU given only as a limit', withKey(gpu(undefined, '1')), { allowed: true }],
    ['refuses a resource that is not a quantity', withKey({ resources: { requests: { cpu: 'lots' } } }), invalid(/^spec\.resources\.requests\.cpu: "lots" is not a quantity/)],
    ['refuses a negative request', withKey({ resources: { requests: { memory: '-1Gi' } } }), invalid(/spec\.resources\.requests\.memory: must not be negative/)],
    ['refuses a storage size that is not a quantity', withKey({ storage: '10 gigs' }), invalid(/^spec\.storage: "10 gigs" is not a quantity/)],
    ['refuses CPU over quota, counting only running workspaces', withKey({ resources: { requests: { cpu: '3500m' } } }), overQuota(/^spec\.resources\.requests\.cpu: exceeded quota of UserSpace "alice" \(spec\.quota\.cpu\): requested 3500m, used 1, limited 4$/)],
    ['admits CPU that exactly fills the quota', withKey({ resources: { requests: { cpu: '3' } } }), { allowed: true }],
    ['counts a limit as the request when no request is set', withKey({ resources: { limits: { cpu: '3500m' } } }), overQuota(/requested 3500m, used 1, limited 4/)],
    ['refuses memory over quota', withKey({ resources: { requests: { memory: '6145Mi' } } }), overQuota(/^spec\.resources\.requests\.memory: exceeded quota of UserSpace "alice" \(spec\.quota\.memory\): requested 6145Mi, used 2Gi, limited 8Gi$/)],
    ['refuses storage over quota, counting every home PVC and stopped workspaces', withKey({ storage: '26Gi' }), overQuota(/^spec\.storage: exceeded quota of UserSpace "alice" \(spec\.quota\.storage\): requested 26Gi, used 25Gi, limited 50Gi$/)],
    ['counts a retained home PVC of the same name once', (k) => workspace('gone', { sshAuthorizedKeys: [k.ed25519], storage: '30Gi' }), { allowed: true }],
    ['refuses GPUs over quota', withKey(gpu('2', '2')), overQuota(/^spec\.resources\.limits\.nvidia\.com\/gpu: exceeded quota of UserSpace "alice" \(spec\.quota\.gpu\): requested 2, used 0, limited 1$/)],
    ['reads an absent GPU quota as zero', withKey(gpu('1', '1')), overQuota(/requested 1, used 0, limited 0/), (w) => ({ ...w, userSpaces: [userSpace('alice', [], { cpu: '4', memory: '8Gi', storage: '50Gi', workspaces: 3 })] })],
    ['admits a stopped workspace whatever its CPU', withKey({ running: false, resources: { requests: { cpu: '64' } } }), { allowed: true }],
    ['refuses what a quota that is not a quantity would limit, naming it', withKey({ resources: { requests: { cpu: '1' } } }), overQuota(/^spec\.resources\.requests\.cpu: UserSpace "alice" spec\.quota\.cpu is "lots", not a valid quantity; an administrator must correct it$/), (w) => ({ ...w, userSpaces: [userSpace('alice', [], { cpu: 'lots', memory: '8Gi', storage: '50Gi', workspaces: 3 })] })],
    ['refuses a workspace beyond the count', withKey(), overQuota(/^metadata\.name: exceeded quota of UserSpace "alice" \(spec\.quota\.workspaces\): requested 1, used 3, limited 3$/), (w) => ({ ...w, workspaces: [...w.workspaces!, workspace('three', { running: false })] })],
    ['reports every quota that is exceeded', withKey({ storage: '40Gi', resources: { requests: { cpu: '4' } } }), overQuota(/spec\.resources\.requests\.cpu: .*; spec\.storage: /)],
    ['reports invalid fields alone when quota is exceeded too', withKey({ imageRef: { name: 'nope' }, storage: '40Gi' }), invalid(/^spec\.imageRef\.name: WorkspaceImage "nope" does not exist$/)],
    ['refuses a name already taken in the namespace', (k) => workspace('one', { sshAuthorizedKeys: [k.ed25519] }), invalid(/^metadata\.name: a Workspace named "one" already exists in namespace svc-alice$/)],
    ['refuses a name that cannot name its Service (a digit first)', (k) => workspace('1dev', { sshAuthorizedKeys: [k.ed25519] }), invalid(/^metadata\.name: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, .*: it names the workspace's Service$/)],
    ['refuses a name with a dot, which a Service name cannot hold', (k) => workspace('dev.one', { sshAuthorizedKeys: [k.ed25519] }), invalid(/^metadata\.name: a DNS-1035 label/)],
    ['refuses a name longer than its StatefulSet\'s pods can carry', (k) => workspace('w'.repeat(53), { sshAuthorizedKeys: [k.ed25519] }), invalid(/^metadata\.name: must be no more than 52 characters \(the pods of its StatefulSet carry a label of the name and 11 more characters\)$/)],
    ['admits a name of exactly 52 characters', (k) => workspace('w'.repeat(52), { sshAuthorizedKeys: [k.ed25519] }), { allowed: true }],
    ['admits a repository to clone with a ref and a path', withKey({ source: { git: { url: 'https://git.example.com/team/api.git', ref: 'release/1.2', path: 'src/api' } } }), { allowed: true }],
    ['admits an SSH repository URL in its scp-like form', withKey({ source: { git: { url: 'git@github.com:team/api.git' } } }), { allowed: true }],
    ['admits an ssh:// repository URL with a port', withKey({ source: { git: { url: 'ssh://git@git.example.com:2222/team/api.git' } } }), { allowed: true }],
    ['refuses an SSH repository URL carrying a password', withKey({ source: { git: { url: 'ssh://git:pw@github.com/team/api.git' } } }), invalid(/^spec\.source\.git\.url: must not carry a password/)],
    ['refuses a repository URL carrying a token', withKey({ source: { git: { url: 'https://x:ghp_abc@github.com/team/api.git' } } }), invalid(/^spec\.source\.git\.url: must not carry a user name or token/)],
    ['refuses a ref git would not accept', withKey({ source: { git: { url: 'https://git.example.com/api.git', ref: 'main..dev' } } }), invalid(/^spec\.source\.git\.ref: "main\.\.dev" must not contain \.\./)],
    ['refuses a clone path outside the home', withKey({ source: { git: { url: 'https://git.example.com/api.git', path: 'a/../../etc' } } }), invalid(/^spec\.source\.git\.path: "a\/\.\.\/\.\.\/etc" must name a folder inside the home/)],
    ['refuses a clone path in Den\'s own ~/.den', withKey({ source: { git: { url: 'https://git.example.com/api.git', path: '.den/x' } } }), invalid(/^spec\.source\.git\.path: "\.den\/x" is inside ~\/\.den/)],
    ['refuses a URL with no repository name when no path is given', withKey({ source: { git: { url: 'https://git.example.com/.git' } } }), invalid(/^spec\.source\.git\.path: the URL .* ends in no repository name to clone into; give a path/)],
    ['refuses a namespace that belongs to no UserSpace', (k) => workspace('dev', { sshAuthorizedKeys: [k.ed25519] }, 'team-x'), invalid(/^metadata\.namespace: namespace team-x belongs to no UserSpace/)],
    ['admits ports shared with signed-in people, named people and the public', withKey({ sharedPorts: [{ port: 3000, level: 'authenticated' }, { port: 8080, level: 'people', people: ['bob'] }, { port: 9000, level: 'public' }] }), { allowed: true }],
    ['refuses a port shared twice', withKey({ sharedPorts: [{ port: 3000, level: 'authenticated' }, { port: 3000, level: 'public' }] }), invalid(/^spec\.sharedPorts\[1\]\.port: port 3000 is listed twice: one entry per port$/)],
    ['refuses a people share naming nobody', withKey({ sharedPorts: [{ port: 3000, level: 'people' }] }), invalid(/^spec\.sharedPorts\[0\]\.people: name at least one person \(their Den user name\) to share with$/)],
    ['refuses people on a share of another level', withKey({ sharedPorts: [{ port: 3000, level: 'authenticated', people: ['bob'] }] }), invalid(/^spec\.sharedPorts\[0\]\.people: people go with level people, not authenticated$/)],
  ];
  for (const [title, make, want, world] of creates) {
    it(`on CREATE ${title}`, () => {
      expectAnswer(validate(make(keys), { world }), want);
    });
  }

  it('admits anything in the excluded namespaces, even when the configuration sends it', () => {
    for (const namespace of ['svc-system', 'kube-system']) {
      const response = validate(workspace('x', { imageRef: { name: 'nope' }, sshAuthorizedKeys: ['garbage'] }, namespace), { namespace });
      expectAnswer(response, { allowed: true });
    }
  });

  it('refuses a review of another kind, naming the misconfiguration', () => {
    const review = reviewOf({ kind: 'UserSpace', object: userSpace('alice', []) });
    const response = reviewWorkspaceValidation(review.request, viewOf({}), { gpuResource: GPU }, NOW);
    expect(response.allowed).to.equal(false);
    expect(response.status?.message).to.equal('this webhook reviews den.dev/Workspace objects, not den.dev/UserSpace; check the webhook configuration');
  });

  describe('on UPDATE', () => {
    const running = (k: TestKeys, spec: Workspace['spec'] = {}) => workspace('one', { sshAuthorizedKeys: [k.ed25519], resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } }, ...spec });
    const stopped = (k: TestKeys, spec: Workspace['spec'] = {}) => workspace('two', { sshAuthorizedKeys: [k.ed25519], running: false, resources: { requests: { cpu: '2', memory: '4Gi' } }, ...spec });
    const lowered = (w: ViewContent): ViewContent => ({ ...w, userSpaces: [userSpace('alice', [], { cpu: '500m', memory: '1Gi', storage: '1Gi', gpu: 0, workspaces: 1 })] });

    type UpdateCase = [string, (k: TestKeys) => [Workspace, Workspace], Expect, ((w: ViewContent) => ViewContent)?];
    const updates: UpdateCase[] = [
      ['refuses a change of spec.storage', (k) => [running(k, { storage: '20Gi' }), running(k)], invalid(/^spec\.storage: is immutable once set: it was 10Gi, the update asks for 20Gi$/)],
      ['refuses removing spec.storage', (k) => [running(k, { storage: undefined }), running(k)], invalid(/^spec\.storage: is immutable once set: it was 10Gi, the update asks for none$/)],
      ['admits the same storage written with another suffix', (k) => [running(k, { storage: '10240Mi' }), running(k)], { allowed: true }],
      ['refuses a resize that exceeds the quota', (k) => [running(k, { resources: { requests: { cpu: '4500m' }, limits: { cpu: '5' } } }), running(k)], overQuota(/^spec\.resources\.requests\.cpu: exceeded quota of UserSpace "alice" \(spec\.quota\.cpu\): requested 4500m, used 0, limited 4$/)],
      ['admits a resize that fits the quota', (k) => [running(k, { resources: { requests: { cpu: '4' }, limits: { cpu: '4' } } }), running(k)], { allowed: true }],
      ['refuses a start that exceeds the quota', (k) => [stopped(k, { running: true, resources: { requests: { cpu: '3500m' } } }), stopped(k, { resources: { requests: { cpu: '3500m' } } })], overQuota(/requested 3500m, used 1, limited 4/)],
      ['admits a stop after the quota was lowered', (k) => [running(k, { running: false }), running(k)], { allowed: true }, lowered],
      ['admits a label change after the quota was lowered', (k) => [{ ...running(k), metadata: { ...running(k).metadata, labels: { team: 'a' } } }, running(k)], { allowed: true }, lowered],
      ['admits a finalizer removal on a workspace being deleted whose image is gone', (k) => {
        const old = running(k, { imageRef: { name: 'vanished' } });
        old.metadata = { ...old.metadata, finalizers: ['den.dev/home'], deletionTimestamp: '2026-06-01T11:00:00Z' };
        return [{ ...old, metadata: { ...old.metadata, finalizers: [] } }, old];
      }, { allowed: true }],
      ['admits a stop when the image left the catalog', (k) => [running(k, { imageRef: { name: 'vanished' }, running: false }), running(k, { imageRef: { name: 'vanished' } })], { allowed: true }],
      ['admits a stop when the image was deprecated since', (k) => [running(k, { imageRef: { name: 'retired' }, running: false }), running(k, { imageRef: { name: 'retired' } })], { allowed: true }],
      ['refuses switching to a deprecated image', (k) => [running(k, { imageRef: { name: 'retired' } }), running(k)], invalid(/WorkspaceImage "retired" is deprecated/)],
      ['refuses removing the last key of a running workspace', (k) => [running(k, { sshAuthorizedKeys: [] }), running(k)], invalid(/^spec\.sshAuthorizedKeys: a running workspace/)],
      ['refuses a new key that does not parse', (k) => [running(k, { sshAuthorizedKeys: [k.ed25519, 'ssh-rsa AAAA'] }), running(k)], invalid(/^spec\.sshAuthorizedKeys\[1\]: not a valid SSH public key/)],
      ['refuses a new mount that shadows home', (k) => [running(k, { volumes: [{ name: 'data', emptyDir: {} }], volumeMounts: [{ name: 'data', mountPath: '/' }] }), running(k)], invalid(/"\/" would hide the home volume/)],
      ['refuses a GPU added with request below limit', (k) => [running(k, { resources: { requests: { [GPU]: '0' }, limits: { [GPU]: '1' } } }), running(k)], invalid(/extended resource: its request must equal its limit/)],
      ['does not count the workspace against the workspace count again', (k) => [running(k, { running: false }), running(k)], { allowed: true }, (w) => ({ ...w, workspaces: [...w.workspaces!, workspace('three', { running: false })] })],
    ];
    for (const [title, make, want, world] of updates) {
      it(title, () => {
        const [object, oldObject] = make(keys);
        const stored = (w: ViewContent) => ({ ...w, workspaces: [...w.workspaces!.filter((ws) => ws.metadata?.name !== oldObject.metadata?.name), oldObject] });
        expectAnswer(validate(object, { oldObject, world: (w) => stored(world ? world(w) : w) }), want);
      });
    }
  });

  it('checks an UPDATE in a namespace without a UserSpace for everything but quota', () => {
    const old = workspace('left', { sshAuthorizedKeys: [keys.ed25519], resources: { requests: { cpu: '1' } } }, 'team-x');
    const stored = (w: ViewContent) => ({ ...w, workspaces: [...w.workspaces!, old] });
    const grown = workspace('left', { sshAuthorizedKeys: [keys.ed25519], resources: { requests: { cpu: '64' } } }, 'team-x');
    expectAnswer(validate(grown, { oldObject: old, namespace: 'team-x', world: stored }), { allowed: true });
    const badMount = workspace('left', { sshAuthorizedKeys: [keys.ed25519], resources: { requests: { cpu: '1' } }, volumeMounts: [{ name: 'x', mountPath: '/x' }] }, 'team-x');
    expectAnswer(validate(badMount, { oldObject: old, namespace: 'team-x', world: stored }), invalid(/^spec\.volumeMounts\[0\]\.name: mount does not resolve/));
  });

  it('counts a PVC only once when its workspace also names the storage', () => {
    const world = (w: ViewContent): ViewContent => ({ ...w, claims: [claim('home-one-0', '20Gi')] });
    // one: PVC 20Gi (grown beyond its spec 10Gi), two: 10Gi spec, no retained PVC: 30Gi used.
    expectAnswer(validate(workspace('dev', { sshAuthorizedKeys: [keys.ed25519], storage: '21Gi' }), { world }), overQuota(/requested 21Gi, used 30Gi, limited 50Gi/));
  });
});
