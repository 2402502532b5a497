// Admission webhook calls as kube-apiserver makes them: AdmissionReview v1 over HTTPS,
// rules and namespaceSelector matching, JSONPatch mutation, failurePolicy.
import https from 'node:https';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../kube/client.js';
import type { KubeStatus } from '../../../kube/errors.js';
import { groupOf, type ResourceType } from '../../../kube/resources.js';
import { splitPem } from '../../../hooks/admission/certs.js';
import { goParseRefusals } from '../../../hooks/admission/go-x509.js';
import { jsonPatch } from './patch.js';
import { ApiError as AdmissionError } from './api-error.js';
import type { UserInfo } from './rbac.js';


export interface AdmissionOutcome {
  object: KubeObject;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

interface Webhook {
  name: string;
  clientConfig: { url?: string; caBundle?: string; service?: { name: string; namespace: string; path?: string; port?: number } };
  rules?: { apiGroups?: string[]; apiVersions?: string[]; resources?: string[]; operations?: string[]; scope?: string }[];
  namespaceSelector?: LabelSelector;
  failurePolicy?: 'Fail' | 'Ignore';
  timeoutSeconds?: number;
}

export function selectorMatches(sel: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!sel) return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = e.key in labels;
    const v = labels[e.key];
    if (e.operator === 'In' && !(has && e.values?.includes(v!))) return false;
    if (e.operator === 'NotIn' && has && e.values?.includes(v!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function any(list: string[] | undefined, value: string): boolean {
  return !!list && (list.includes('*') || list.includes(value));
}

function rulesMatch(wh: Webhook, t: ResourceType, operation: string): boolean {
  const group = groupOf(t.apiVersion);
  const version = t.apiVersion.split('/').pop()!;
  return (wh.rules ?? []).some((r) => {
    const scope = r.scope ?? '*';
    const scopeOk = scope === '*' || (scope === 'Namespaced') === t.namespaced;
    return scopeOk && any(r.apiGroups, group) && any(r.apiVersions, version) && any(r.resources, t.plural) && any(r.operations, operation);
  });
}

function post(url: string, ca: Buffer | undefined, body: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : http;
    const req = lib.request(u, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }, ca, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`the server responded with status ${res.statusCode}: ${text.slice(0, 200)}`));
        else resolve(text);
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', reject);
    req.end(body);
  });
}

export async function callWebhooks(args: {
  configs: KubeObject[];
  mutating: boolean;
  type: ResourceType;
  operation: 'CREATE' | 'UPDATE';
  object: KubeObject;
  oldObject?: KubeObject;
  user: UserInfo;
  namespaceOf: (name: string) => KubeObject | undefined;
}): Promise<AdmissionOutcome> {
  let object = args.object;
  const ns = args.type.namespaced ? object.metadata?.namespace : undefined;
  const nsLabels = ns ? (args.namespaceOf(ns)?.metadata?.labels ?? { 'kubernetes.io/metadata.name': ns }) : undefined;
  const webhooks = args.configs.flatMap((c) => ((c as { webhooks?: Webhook[] }).webhooks ?? []));
  for (const wh of webhooks) {
    if (!rulesMatch(wh, args.type, args.operation)) continue;
    if (nsLabels && !selectorMatches(wh.namespaceSelector, nsLabels)) continue;
    const cc = wh.clientConfig;
    const url = cc.url ?? (cc.service ? `https://${cc.service.name}.${cc.service.namespace}.svc:${cc.service.port ?? 443}${cc.service.path ?? ''}` : '');
    const timeout = wh.timeoutSeconds ?? 10;
    const group = groupOf(args.type.apiVersion);
    const version = args.type.apiVersion.split('/').pop()!;
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: randomUUID(),
        kind: { group, version, kind: args.type.kind },
        resource: { group, version, resource: args.type.plural },
        requestKind: { group, version, kind: args.type.kind },
        requestResource: { group, version, resource: args.type.plural },
        name: object.metadata?.name,
        ...(ns ? { namespace: ns } : {}),
        operation: args.operation,
        userInfo: { username: args.user.username, ...(args.user.uid ? { uid: args.user.uid } : {}), groups: args.user.groups },
        object,
        oldObject: args.oldObject ?? null,
        dryRun: false,
        options: { kind: args.operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' },
      },
    };
    const ca = cc.caBundle ? Buffer.from(cc.caBundle, 'base64') : undefined;
    // kube-apiserver loads caBundle with Go's crypto/x509, which refuses more than OpenSSL does.
    const unloadable = ca ? splitPem(ca.toString('utf8')).flatMap(goParseRefusals) : [];
    if (unloadable.length > 0) {
      if (wh.failurePolicy === 'Ignore') continue;
      const problem = unloadable[0]!.replace(/^(issuer|subject): /, '').replace(/ ".*"$/, '');
      const message = `failed calling webhook "${wh.name}": could not get REST client: unable to load root certificates: failed to parse certificate: x509: invalid RDNSequence: ${problem}`;
      throw new AdmissionError(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 });
    }
    let answer: any;
    try {
      answer = JSON.parse(await post(`${url}?timeout=${timeout}s`, ca, JSON.stringify(review), timeout * 1000));
      if (!answer?.response || answer.response.uid !== review.request.uid) throw new Error('expected response.uid to match the request.uid');
    } catch (err) {
      if (wh.failurePolicy === 'Ignore') continue;
      const message = `failed calling webhook "${wh.name}": failed to call webhook: Post "${url}?timeout=${timeout}s": ${(err as Error).message}`;
      throw new AdmissionError(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 });
    }
    const response = answer.response;
    if (!response.allowed) {
      const code = response.status?.code ?? 400;
      const text = response.status?.message ? `admission webhook "${wh.name}" denied the request: ${response.status.message}` : `admission webhook "${wh.name}" denied the request without explanation`;
      const reason = response.status?.reason || (code === 403 ? 'Forbidden' : code === 422 ? 'Invalid' : 'BadRequest');
      // kube-apiserver's ToStatusErr keeps the webhook's details (the refused fields) as they are.
      const details = response.status?.details;
      throw new AdmissionError(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: text, reason, code, ...(details ? { details } : {}) } as KubeStatus);
    }
    if (args.mutating && response.patch) {
      const ops = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
      object = jsonPatch(object, ops);
    }
  }
  return { object };
}

