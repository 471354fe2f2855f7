export {
  judgeAddress,
  judgeReceiverAddress,
  type AddressJudgement,
  type AddressRefusal,
} from "./address-judgement.js";
export { parseIp, formatIp, type IpBytes } from "./ip-address.js";
export {
  checkPublicUrl,
  checkUrlText,
  systemResolve,
  MAX_URL_LENGTH,
  type AddressRules,
  type PublicUrlCheck,
  type ResolvedAddress,
  type Resolve,
  type UrlRefusal,
} from "./public-url.js";
export { connectTarget, checkedLookup, AddressNotAllowedError, type ConnectTarget } from "./connect.js";
export { checkIpIdentity } from "./ip-identity.js";
export { checkUpstreamUrl, upstreamTarget } from "./upstream-url.js";
