// The requests the conformance test sends to the fake and to the real API server alike, one
// case per behaviour the fake implements; each answers what a client reads of the answers
// (status codes, Status bodies, objects' fields, watch events, managedFields' owners).
import { ADMISSION_CASES } from './cases-admission.js';
import { APPLY_CASES } from './cases-apply.js';
import { READS_CASES } from './cases-reads.js';
import { WRITES_CASES } from './cases-writes.js';
import type { Case } from './objects.js';

export { GADGET_CRD } from './objects.js';
export type { Case } from './objects.js';

export const CASES: Case[] = [...WRITES_CASES, ...READS_CASES, ...APPLY_CASES, ...ADMISSION_CASES];
