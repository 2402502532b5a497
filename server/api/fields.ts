// Field checks shared by the request schemas: Kubernetes names and quantities.
import { DNS1035_LABEL, DNS1123_LABEL, DNS1123_SUBDOMAIN } from '../../kube/names.js';
import { isNonNegativeQuantity } from '../../kube/quantity.js';
import { fields } from '../http/validate.js';


export function label(max = 63) {
  return fields
    .string()
    .max(max, `\${path} must be at most ${max} characters`)
    .matches(DNS1123_LABEL, '${path} must be an RFC 1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit');
}

/** A label that also names a Service (DNS-1035): a letter first. */
export function serviceName(max = 63) {
  return label(max).matches(DNS1035_LABEL, "${path} must start with a lower-case letter (it also names the workspace's Service)");
}

export function subdomain(max = 253) {
  return fields
    .string()
    .max(max, `\${path} must be at most ${max} characters`)
    .matches(DNS1123_SUBDOMAIN, '${path} must be an RFC 1123 subdomain: lower-case letters, digits, "-" and "."');
}

export function quantity() {
  return fields.string().test('quantity', '${path} must be a Kubernetes quantity such as 500m, 2, 4Gi or 10G', (value) => value === undefined || isNonNegativeQuantity(value));
}
