import { defineSuite } from '../vitest.js';
import { checks } from './index.js';

defineSuite(checks);
