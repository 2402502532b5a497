// Quantities from k8s.io/apimachinery/pkg/api/resource's TestQuantityParse: what ParseQuantity
// (kube-apiserver, the kubelet) accepts and what it refuses. Go's resource package cannot be
// built from the standard library alone, so its grammar is pinned by its own test cases; read
// by the quantity rule's test (test/rules/quantity.test.ts) and the Go pattern check.
export const APIMACHINERY_VALID = [
  '0', '0n', '0u', '0m', '0Ki', '0k', '0Mi', '0M', '0Gi', '0G', '0Ti', '0T', '1', '1Ki', '8Ki', '7Mi', '6Gi', '5Ti', '4Pi', '3Ei', '10Ti', '100Ti',
  '5n', '4u', '3m', '9', '8k', '50k', '7M', '6G', '5T', '40T', '300T', '2P', '1E', '1E-3', '1e3', '1E6', '1e9', '1E12', '1e15', '1E18', '1e14', '1e13',
  '100.035k', '0.001', '0.0005k', '0.005', '0.05', '0.5', '0.00050k', '0.00500', '0.05000', '0.50000', '0.5e0', '0.5e-1', '0.5e-2', '10.035M',
  '1.2e3', '1.3E+6', '1.40e9', '1.53E12', '1.6e15', '1.7E18', '9.01', '8.1k', '7.123456M', '6.987654321G', '5.444T', '40.1T', '300.2T', '2.5P', '1.01E',
  '3.001n', '1.1E-9', '0.0000000001', '0.0000000005', '0.00000000050', '0.5e-9', '0.9n', '0.00000012345', '0.00000012354', '9Ei', '9223372036854775807Ki', '12E',
  '100.035Ki', '0.5Mi', '0.05Gi', '0.025Ti', '0.000000000001Ki', '.001', '.0001k', '1.', '1.G',
];
export const APIMACHINERY_INVALID = ['1.1.M', '1+1.0M', '0.1mi', '0.1am', 'aoeu', '.5i', '1i', '-3.01i', '-3.01e-', ' 1', '1 ', '', '1K', '1ki', '1KI', '1KiB', '1Zi', '1e', '1e+', '1e3k', '1E3Ki', '1..5', '1,5', '0x10', 'Inf', 'NaN', '++1', '1-'];
