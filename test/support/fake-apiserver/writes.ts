// Writes as kube-apiserver makes them: create, update, the four patch types, delete with its
// options, and TokenRequest. A write whose object changed while its webhooks ran starts over on
// the new version (etcd's compare-and-swap): a stale resourceVersion answers 409, an apply conflicts.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../../kube/client.js';
import { groupOf, RESOURCES, type ResourceType } from '../../../kube/resources.js';
import { fixture } from '../fixtures.js';
import { AdmissionChain } from './admission-chain.js';
import { ApiError, status } from './api-error.js';
import { isCore, isNamespace, jsonOrUndefined, namespaceFinalized, STALE, stripVolatile, timestamp, type Route, type Writer } from './helpers.js';
import { apply, conflictMessage, fieldSet, printManager, printPath, recordUpdate, toFieldsV1 } from './managed-fields.js';
import { clone, jsonPatch, JsonPatchError, mergePatch } from './patch.js';
import { strategicMergePatch, StrategicMergeError } from './strategic-merge.js';
import { applyLimitDefaults, defaultPodRequests } from './quota.js';
import { bindingOf, type TokenEntry } from './tokens.js';

/** Core kinds whose registry answers a DELETE with the object even once it is gone (ReturnDeletedObject), as 1.25's do. */
const RETURNS_DELETED_OBJECT = new Set(['pods', 'namespaces', 'services', 'serviceaccounts', 'persistentvolumeclaims']);

export abstract class Writes extends AdmissionChain {
  protected tokens = new Map<string, TokenEntry>();

  /** Every token a TokenRequest answered, in order (a test looks for them where no secret may be). */
  readonly mintedTokens: string[] = [];

  protected async create(t: ResourceType, pathNamespace: string | undefined, body: any, writer: Writer, dryRun: boolean, applied?: KubeObject): Promise<KubeObject> {
    const { user } = writer;
    if (!body || typeof body !== 'object') throw new ApiError(400, status(400, 'BadRequest', 'the request body is not a valid object'));
    const obj = clone(body) as KubeObject;
    obj.metadata ??= {};
    if (!obj.metadata.name && typeof obj.metadata.generateName === 'string') obj.metadata.name = `${obj.metadata.generateName}${randomBytes(3).toString('hex').slice(0, 5)}`;
    if (t.namespaced) {
      if (obj.metadata.namespace && pathNamespace && obj.metadata.namespace !== pathNamespace) throw new ApiError(400, status(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request'));
      obj.metadata.namespace = pathNamespace ?? obj.metadata.namespace;
    }
    this.validateName(t, obj.metadata.name);
    this.validateMetadata(t, obj);
    this.checkNamespace(t, obj.metadata.namespace, obj.metadata.name!);
    if (this.hasStatusSubresource(t) && t.plural !== 'pods') delete obj.status;
    if (isCore(t, 'resourcequotas')) (obj as { status?: object }).status = {}; // the quota controller fills it in
    for (const k of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'managedFields']) delete obj.metadata[k];
    // Like kube-apiserver: admission (webhooks included) runs before storage, which answers AlreadyExists.
    const limitRanges = t.namespaced ? this.objects(RESOURCES.limitRange, obj.metadata.namespace) : [];
    if (isCore(t, 'pods')) {
      defaultPodRequests(obj);
      applyLimitDefaults(obj, limitRanges);
    }
    const admitted = await this.admit(t, 'CREATE', obj, undefined, user);
    this.checkGrant(t, admitted, user);
    const countInQuotas = this.builtInValidation(t, admitted, limitRanges);
    if (this.find(t, obj.metadata.namespace, obj.metadata.name!)) throw this.alreadyExists(t, obj.metadata.name!);
    const time = timestamp();
    const listKeys = this.listKeysOf(t);
    admitted.metadata!.managedFields = applied
      ? [{ manager: writer.manager, operation: 'Apply', apiVersion: t.apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(fieldSet(applied, listKeys, undefined, 'Apply')) }]
      : recordUpdate({ next: admitted, manager: writer.manager, listKeys, time });
    if (dryRun) return admitted;
    countInQuotas();
    const stored = this.stamp(admitted, t);
    this.put(t, stored, 'ADDED');
    return stored;
  }

  /**
   * Writes a new version of an existing object, honouring the status subresource, finalizers and
   * admission (`managedFields` given by an apply, else recorded as an Update by the writer).
   * Answers STALE when another write replaced `existing` while the webhooks ran: as etcd's
   * compare-and-swap, the caller checks its precondition again or recomputes on the new version.
   */
  protected async write(t: ResourceType, route: Route, existing: KubeObject, next: KubeObject, writer: Writer, managedFields?: unknown[]): Promise<KubeObject | typeof STALE> {
    const { user } = writer;
    const statusOnly = route.subresource === 'status';
    let obj: KubeObject;
    if (statusOnly) {
      obj = clone(existing);
      if (next.status === undefined) delete obj.status;
      else obj.status = clone(next.status);
    } else {
      obj = clone(next);
      obj.metadata = { ...obj.metadata, name: existing.metadata!.name, namespace: existing.metadata!.namespace, uid: existing.metadata!.uid, creationTimestamp: existing.metadata!.creationTimestamp };
      if (existing.metadata?.deletionTimestamp) obj.metadata.deletionTimestamp = existing.metadata.deletionTimestamp;
      if (this.hasStatusSubresource(t)) {
        if (existing.status === undefined) delete obj.status;
        else obj.status = clone(existing.status);
      }
      obj = await this.admit(t, 'UPDATE', obj, existing, user);
      if (this.find(t, existing.metadata!.namespace, existing.metadata!.name!) !== existing) return STALE;
      this.checkGrant(t, obj, user);
      this.validateMetadata(t, obj);
    }
    obj.metadata!.managedFields = managedFields ?? recordUpdate({ old: existing, next: obj, manager: writer.manager, subresource: route.subresource, listKeys: this.listKeysOf(t), time: timestamp() });
    const owners = (o: KubeObject) => JSON.stringify(((o.metadata?.managedFields as object[] | undefined) ?? []).map((e) => ({ ...e, time: undefined })));
    if (JSON.stringify(stripVolatile(obj)) === JSON.stringify(stripVolatile(existing)) && owners(obj) === owners(existing)) return existing;
    const stored = this.stamp(obj, t, existing);
    const finalized = isNamespace(t) ? namespaceFinalized(stored) : !stored.metadata?.finalizers?.length;
    if (stored.metadata?.deletionTimestamp && finalized) {
      this.drop(t, stored);
      return stored;
    }
    this.put(t, stored, 'MODIFIED');
    return stored;
  }

  protected async update(t: ResourceType, route: Route, body: any, writer: Writer): Promise<KubeObject> {
    const rv = body?.metadata?.resourceVersion;
    for (;;) {
      const existing = this.mustFind(t, route.namespace, route.name!);
      if (rv && rv !== existing.metadata?.resourceVersion) throw this.conflict(t, route.name!);
      const stored = await this.write(t, route, existing, body, writer);
      if (stored !== STALE) return stored;
    }
  }

  /** A PATCH, computed again on the new version whenever another write lands while its webhooks run. */
  protected async patch(t: ResourceType, route: Route, body: any, contentType: string, writer: Writer, opts: { fieldManager?: string; force: boolean }) {
    for (;;) {
      const answer = await this.patchOnce(t, route, body, contentType, writer, opts);
      if (answer.body !== STALE) return answer as { code: number; body: KubeObject };
    }
  }

  protected async patchOnce(t: ResourceType, route: Route, body: any, contentType: string, writer: Writer, opts: { fieldManager?: string; force: boolean }): Promise<{ code: number; body: KubeObject | typeof STALE }> {
    const existing = this.find(t, route.namespace, route.name!);
    const type = contentType.split(';')[0]!.trim();
    if (type === 'application/apply-patch+yaml') {
      if (!opts.fieldManager) {
        const problem = 'Required value: is required for apply patch';
        throw new ApiError(422, status(422, 'Invalid', `PatchOptions.meta.k8s.io "" is invalid: fieldManager: ${problem}`, { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: problem, field: 'fieldManager' }] }));
      }
      if (!existing) {
        if (route.subresource) throw this.notFound(t, route.name!);
        const applied = { ...body, metadata: { ...body?.metadata, name: route.name } };
        try {
          return { code: 201, body: await this.create(t, route.namespace, applied, writer, false, applied) };
        } catch (err) {
          // Another apply created it meanwhile: apply onto what it stored, as the real server retries.
          if (err instanceof ApiError && err.body.reason === 'AlreadyExists') return { code: 200, body: STALE };
          throw err;
        }
      }
      const outcome = apply({ live: existing, applied: body, manager: opts.fieldManager, subresource: route.subresource, force: opts.force, listKeys: this.listKeysOf(t), time: timestamp() });
      if ('conflicts' in outcome) {
        const causes = outcome.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: printPath(c.path) }));
        throw new ApiError(409, status(409, 'Conflict', conflictMessage(outcome.conflicts), { causes }));
      }
      return { code: 200, body: await this.write(t, route, existing, outcome.object, writer, outcome.managedFields) };
    }
    const known = ['application/json-patch+json', 'application/merge-patch+json', ...(this.isCustom(t) ? [] : ['application/strategic-merge-patch+json'])];
    if (!known.includes(type)) throw new ApiError(415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${[...known, 'application/apply-patch+yaml'].join(', ')}`));
    if (!existing) throw this.notFound(t, route.name!);
    let next: KubeObject;
    try {
      if (type === 'application/json-patch+json') next = jsonPatch(existing, body);
      else if (type === 'application/merge-patch+json') next = mergePatch(existing, body);
      else if (type === 'application/strategic-merge-patch+json' && !this.isCustom(t)) next = strategicMergePatch(existing, body);
      else throw new ApiError(415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`));
    } catch (err) {
      if (err instanceof JsonPatchError) throw new ApiError(422, status(422, 'Invalid', err.message));
      if (err instanceof StrategicMergeError) throw new ApiError(500, status(500, 'InternalError', `Internal error occurred: ${err.message}`));
      throw err;
    }
    const rv = (body as any)?.metadata?.resourceVersion;
    if (rv && rv !== existing.metadata?.resourceVersion) throw this.conflict(t, route.name!);
    return { code: 200, body: await this.write(t, route, existing, next, writer) };
  }

  /**
   * A DELETE with its options: preconditions (uid, resourceVersion) answer 409 when they do not
   * hold; a pod bound to a node is given its grace period. Answers the object while it remains
   * (finalizers, grace), else a Status naming what went (but for RETURNS_DELETED_OBJECT).
   */
  protected delete(t: ResourceType, namespace: string | undefined, name: string, raw: string): { code: number; body: unknown } {
    const existing = this.mustFind(t, namespace, name);
    const options = (raw ? jsonOrUndefined(raw) : undefined) as { preconditions?: { uid?: string; resourceVersion?: string }; gracePeriodSeconds?: number } | undefined;
    const pre = options?.preconditions ?? {};
    const group = groupOf(t.apiVersion);
    const conflict = (what: string) => new ApiError(409, status(409, 'Conflict', `Operation cannot be fulfilled on ${group ? `${t.kind}.${group}` : t.kind} "${name}": ${what}`, { name, ...(group ? { group } : {}), kind: t.kind }));
    if (pre.uid && pre.uid !== existing.metadata!.uid) throw conflict(`the UID in the precondition (${pre.uid}) does not match the UID in record (${existing.metadata!.uid}). The object might have been deleted and then recreated`);
    if (pre.resourceVersion && pre.resourceVersion !== existing.metadata!.resourceVersion) throw conflict(`the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${existing.metadata!.resourceVersion}). The object might have been modified`);
    const after = isCore(t, 'pods') ? this.deletePod(existing, options?.gracePeriodSeconds) : this.deleteObject(t, existing);
    if (RETURNS_DELETED_OBJECT.has(t.plural) && t.apiVersion === 'v1') return { code: 200, body: after };
    if (this.find(t, namespace, name)) return { code: 200, body: after };
    return { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, ...(group ? { group } : {}), kind: t.plural, uid: existing.metadata!.uid } } };
  }

  /**
   * A pod bound to a node is marked with its grace period (the request's, else the spec's
   * terminationGracePeriodSeconds, else 30) and stays until the fake kubelet has stopped it
   * (podTerminationMs later); a pod on no node, or a grace of 0, goes at once.
   */
  protected deletePod(pod: KubeObject, gracePeriodSeconds: number | undefined): KubeObject {
    const spec = (pod as { spec?: { nodeName?: string; terminationGracePeriodSeconds?: number } }).spec ?? {};
    const grace = gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
    if (pod.metadata?.deletionTimestamp && grace > 0) return pod;
    if (!spec.nodeName || grace <= 0) {
      const gone = this.deleteObject(RESOURCES.pod, pod);
      if (gone !== pod) return gone;
      return { ...pod, metadata: { ...pod.metadata, deletionTimestamp: pod.metadata?.deletionTimestamp ?? timestamp(), deletionGracePeriodSeconds: 0 } };
    }
    const marked = this.markDeleted(RESOURCES.pod, pod, grace);
    const uid = pod.metadata!.uid;
    const { namespace, name } = pod.metadata as { namespace: string; name: string };
    setTimeout(() => {
      const current = this.find(RESOURCES.pod, namespace, name);
      if (current && current.metadata?.uid === uid) this.deleteObject(RESOURCES.pod, current);
    }, this.opts.podTerminationMs ?? 20).unref();
    return marked;
  }

  protected markDeleted(t: ResourceType, obj: KubeObject, graceSeconds: number): KubeObject {
    const marked = clone(obj);
    marked.metadata!.deletionTimestamp = new Date(Date.now() + graceSeconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    marked.metadata!.deletionGracePeriodSeconds = graceSeconds;
    const stored = this.stamp(marked, t, obj);
    this.put(t, stored, 'MODIFIED');
    return stored;
  }

  protected tokenRequest(route: Route, raw: string) {
    this.checkNamespace(RESOURCES.serviceAccount, route.namespace, route.name!);
    const sa = this.find(RESOURCES.serviceAccount, route.namespace, route.name!);
    if (!sa) throw this.notFound(RESOURCES.serviceAccount, route.name!);
    const req = raw ? JSON.parse(raw) : {};
    const seconds = Number(req?.spec?.expirationSeconds ?? 3600);
    if (!(seconds >= 600)) {
      const problem = `Invalid value: ${req.spec.expirationSeconds}: may not specify a duration less than 10 minutes`;
      throw new ApiError(422, status(422, 'Invalid', `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: ${problem}`, { group: 'authentication.k8s.io', kind: 'TokenRequest', causes: [{ reason: 'FieldValueInvalid', message: problem, field: 'spec.expirationSeconds' }] }));
    }
    const binding = bindingOf(sa, req?.spec ?? {}, (t, namespace, name) => this.find(t, namespace, name));
    const token = `fake.${randomBytes(24).toString('base64url')}`;
    this.mintedTokens.push(token);
    const expires = Date.now() + seconds * 1000;
    const ns = route.namespace!;
    this.tokens.set(token, { user: { username: `system:serviceaccount:${ns}:${route.name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'], uid: sa.metadata!.uid }, expires, binding });
    const answer = fixture('tokenrequest-session.json').body;
    answer.metadata = { name: route.name, namespace: ns, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    const bound = binding.boundObject;
    const boundObjectRef = bound ? { kind: bound.type.kind, apiVersion: bound.type.apiVersion, name: bound.name, uid: bound.uid } : null;
    answer.spec = { audiences: binding.audiences, expirationSeconds: seconds, boundObjectRef };
    answer.status = { token, expirationTimestamp: new Date(expires).toISOString().replace(/\.\d+Z$/, 'Z') };
    return { code: 201, body: answer };
  }
}
