// The four den.dev CustomResourceDefinitions, rendered from contract.
import { Construct } from 'constructs';
import { ApiObject } from 'cdk8s';
import { denCrds } from '../../contract/index.js';

export class DenCustomResourceDefinitions extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    for (const crd of denCrds()) {
      // Raw ApiObject: the typed class would re-case x-kubernetes-* keys of the schema.
      new ApiObject(this, crd.spec.names.kind, crd);
    }
  }
}
