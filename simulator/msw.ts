export { simulatorHandlers } from './adapters/msw.js';
