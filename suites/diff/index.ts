/** `idp-conformance diff`: the target's exchanges against the reference simulator's, by shape. */
export { createRecording, diffRecordings, compareShapes, pairShapes, covered, type Recording } from './compare.js';
export { shapeOf, jsonShape, type ExchangeShape } from './shape.js';
export { operationOf } from './operation.js';
export { readTargetProfile, VERSION_PATH, type ReadProfile } from './profile.js';
