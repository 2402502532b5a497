// kube-apiserver's ResourceQuota admission refuses a create with "exceeded quota: <quota>,
// requested: <list>, used: <list>, limited: <list>" (plugin/pkg/admission/resourcequota; each
// list `name=quantity,…`, only the resources that overran), and with "status unknown for
// quota: <quota>, resources: <names>" while Kubernetes' quota controller has not yet counted
// a key that limits the create (the first seconds of a new namespace; a custom resource's count
// until the controller discovers its kind). Read here once, for every place that puts it in a
// person's words: the Workspace status and the pages.

export interface QuotaOverrun {
  /** The ResourceQuota's name. */
  quota: string;
  resources: { name: string; requested: string; used: string; limited: string }[];
}

const EXCEEDED = /exceeded quota: ([^,]+), requested: (.*), used: (.*), limited: (.*)$/s;

function resourceList(text: string): Map<string, string> {
  return new Map(
    text
      .split(',')
      .map((pair) => pair.split('='))
      .filter((kv): kv is [string, string] => kv.length === 2 && kv[0] !== ''),
  );
}

/** The overrun a ResourceQuota refusal names, or undefined for any other message. */
export function quotaOverrunOf(message: string): QuotaOverrun | undefined {
  const match = EXCEEDED.exec(message);
  if (!match) return undefined;
  const [requested, used, limited] = [resourceList(match[2]!), resourceList(match[3]!), resourceList(match[4]!)];
  return { quota: match[1]!, resources: [...requested].map(([name, amount]) => ({ name, requested: amount, used: used.get(name) ?? '0', limited: limited.get(name) ?? '?' })) };
}

const WORDS: Record<string, string> = {
  'requests.cpu': 'CPU',
  cpu: 'CPU',
  'requests.memory': 'memory',
  memory: 'memory',
  'requests.storage': 'storage',
  'limits.cpu': 'CPU limit',
  'limits.memory': 'memory limit',
};

/** `count/workspaces.den.dev` → `workspace`; `pods` → `pod`; anything else as the quota names it. */
function countedKind(name: string): string | undefined {
  const plural = name.startsWith('count/') ? name.slice('count/'.length).split('.')[0]! : ['pods', 'services', 'secrets', 'configmaps', 'persistentvolumeclaims'].includes(name) ? name : undefined;
  if (plural === undefined) return undefined;
  return plural === 'persistentvolumeclaims' ? 'volume' : plural.replace(/s$/, '');
}

/** "2 CPU while 3 of 4 are in use; one more workspace while 2 of 2 exist". */
export function overrunInWords(overrun: QuotaOverrun): string {
  return overrun.resources
    .map(({ name, requested, used, limited }) => {
      const kind = countedKind(name);
      if (kind !== undefined) return `${requested === '1' ? `one more ${kind}` : `${requested} more ${kind}s`} while ${used} of ${limited} exist`;
      const what = WORDS[name] ?? (name.startsWith('requests.') ? name.slice('requests.'.length) : name);
      return `${requested} ${what} while ${used} of ${limited} are in use`;
    })
    .join('; ');
}

const UNCOUNTED = /status unknown for quota: ([^,]+), resources: (.*)$/s;

/** The quota and resources a "status unknown for quota" refusal names, or undefined for any other message. */
export function uncountedQuotaOf(message: string): { quota: string; resources: string[] } | undefined {
  const match = UNCOUNTED.exec(message);
  return match ? { quota: match[1]!, resources: match[2]!.split(',').filter((r) => r !== '') } : undefined;
}

/** What a person is told when the cluster refuses a create because their quota is not counted yet. */
export const SPACE_BEING_SET_UP = 'your space is still being set up: try again in a few seconds';
