import { it } from 'vitest';
it.todo('capabilities');
