import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { FULL_MODULE, K8S_IMPORTS, K8S_IMPORTS_PATH, fullModulePath, trimK8sModule, trimmedFromInstalled } from '../../imports/trim.js';

const require = createRequire(import.meta.url);
const REGENERATE = 'run `npm run k8s-imports` and commit imports/';
const RTTI = Symbol.for('jsii.rtti');

describe('the k8s classes the child constructs use (imports/)', () => {
  it('are committed exactly as trim.ts writes them from the installed cdk8s-plus-28', () => {
    const { module, declarations } = trimmedFromInstalled();
    expect(readFileSync(K8S_IMPORTS_PATH, 'utf8'), REGENERATE).to.equal(module);
    expect(readFileSync(K8S_IMPORTS_PATH.replace(/\.cjs$/, '.d.cts'), 'utf8'), REGENERATE).to.equal(declarations);
  });

  it('keep every class and function as cdk8s-plus-28 wrote it, so children render byte for byte as before', () => {
    const full = require(FULL_MODULE) as Record<string, unknown>;
    const trimmed = require(K8S_IMPORTS_PATH) as Record<string, unknown>;
    const names = Object.keys(trimmed).filter((name) => name !== '__esModule');
    expect(names).to.include.members([...K8S_IMPORTS]);
    for (const name of names) {
      const [ours, theirs] = [trimmed[name], full[name]] as [{ GVK?: unknown; [RTTI]?: unknown }, { GVK?: unknown; [RTTI]?: unknown }];
      expect(String(ours), name).to.equal(String(theirs));
      expect(ours.GVK, `${name}.GVK`).to.deep.equal(theirs.GVK);
      expect(ours[RTTI], `${name}'s jsii type`).to.deep.equal(theirs[RTTI]);
    }
    const { KubeStatefulSet } = trimmed as { KubeStatefulSet: { manifest(props: unknown): unknown } };
    const props = { metadata: { name: 'ws' }, spec: { serviceName: 'ws', selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'dev', image: 'x' }] } } } };
    expect(KubeStatefulSet.manifest(props)).to.deep.equal((full.KubeStatefulSet as typeof KubeStatefulSet).manifest(props));
  });

  it('hold a small part of the generated module: the kinds Den renders, not the rest of the API', () => {
    const trimmed = require(K8S_IMPORTS_PATH) as Record<string, unknown>;
    expect(trimmed).not.to.have.property('KubeDeployment');
    expect(trimmed).not.to.have.property('KubeCustomResourceDefinition');
    expect(readFileSync(K8S_IMPORTS_PATH).length).to.be.below(readFileSync(fullModulePath()).length / 20);
  });

  it("leave cdk8s-plus-28's full generated module out of den manager's modules", async () => {
    const script = [
      "await import('./hooks/manager-role.ts');",
      "const { createRequire } = await import('node:module');",
      "process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));",
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../../', import.meta.url) });
    const loaded = JSON.parse(stdout) as string[];
    expect(loaded.some((path) => path.endsWith('imports/k8s.cjs'))).to.equal(true);
    expect(loaded.filter((path) => path.includes('cdk8s-plus-28'))).to.deep.equal([]);
  });

  describe('trimK8sModule', () => {
    const generated = [
      '"use strict";',
      'var _a, _b;',
      'Object.defineProperty(exports, "__esModule", { value: true });',
      'exports.toJson_Unused = exports.toJson_Meta = exports.toJson_KubeAProps = exports.KubeB = exports.KubeA = void 0;',
      'const JSII_RTTI_SYMBOL_1 = Symbol.for("jsii.rtti");',
      'const cdk8s_1 = require("cdk8s");',
      '/** A */',
      'class KubeA extends cdk8s_1.ApiObject { toJson() { return toJson_KubeAProps(super.toJson()); } }',
      'exports.KubeA = KubeA;',
      '_a = JSII_RTTI_SYMBOL_1;',
      'KubeA[_a] = { fqn: "k8s.KubeA" };',
      "KubeA.GVK = { apiVersion: 'v1', kind: 'A' };",
      'class KubeB extends cdk8s_1.ApiObject {}',
      'exports.KubeB = KubeB;',
      '_b = JSII_RTTI_SYMBOL_1;',
      'KubeB[_b] = { fqn: "k8s.KubeB" };',
      'function toJson_KubeAProps(obj) { return { metadata: toJson_Meta(obj.metadata), kind: Kind.A }; }',
      'exports.toJson_KubeAProps = toJson_KubeAProps;',
      'function toJson_Meta(obj) { return obj; }',
      'exports.toJson_Meta = toJson_Meta;',
      'function toJson_Unused(obj) { return obj; }',
      'exports.toJson_Unused = toJson_Unused;',
      'var Kind;',
      '(function (Kind) { Kind["A"] = "A"; })(Kind || (exports.Kind = Kind = {}));',
      '//# sourceMappingURL=data:application/json;base64,e30=',
    ].join('\n');

    it('keeps what the named classes reach, with their exports and jsii types, and drops the rest', () => {
      const module = { exports: {} as Record<string, unknown> };
      const text = trimK8sModule(generated, ['KubeA']);
      new Function('exports', 'require', 'module', text)(module.exports, require, module);
      expect(Object.keys(module.exports).sort()).to.deep.equal(['Kind', 'KubeA', 'toJson_KubeAProps', 'toJson_Meta']);
      expect((module.exports.KubeA as Record<symbol, unknown>)[RTTI]).to.deep.equal({ fqn: 'k8s.KubeA' });
      expect(text).not.to.include('KubeB').and.not.to.include('toJson_Unused').and.not.to.include('sourceMappingURL');
    });

    it('names a class the generated module does not have', () => {
      expect(() => trimK8sModule(generated, ['KubeA', 'KubeC'])).to.throw(`${FULL_MODULE} has no KubeC`);
    });
  });
});
