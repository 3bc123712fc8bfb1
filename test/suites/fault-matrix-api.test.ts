import { faultMatrix } from './fault-matrix.js';

faultMatrix('api');
