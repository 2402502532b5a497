// The in-process fake kube-apiserver used by tests and benchmarks (see fake-apiserver/index.ts).
export { FakeApiServer, ApiError, CLUSTER_PROFILE, CLUSTER_CPU_PROFILE, INSTANT_PROFILE, type FakeApiServerOptions, type LatencyProfile, type RequestRecord, type UpgradeHandler, type UserInfo } from './fake-apiserver/index.js';
