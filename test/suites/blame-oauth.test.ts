import { noCollateralBlame } from './blame.js';

noCollateralBlame('oauth');
