import { noCollateralBlame } from './blame.js';

noCollateralBlame('api');
