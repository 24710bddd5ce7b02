// Byte helpers of the suites: the benches' own (bench/_bytes.ts), so that the bench
// tree never reaches into test/.
export { concatBytes } from '../bench/_bytes.js'
