export {
  parseStrictJson,
  scanJsonText,
  firstInvalidUtf8,
  type JsonPath,
  type StrictJson,
} from "./strict-json.js";
export { textProblem, urlTextProblem } from "./text-rule.js";
