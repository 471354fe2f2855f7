/**
 * The Gateway's public base URL, as the installation told the api (COUNTERSIGN_GATEWAY_URL): the api
 * writes it into this page's `countersign-gateway-url` meta (api/src/dashboard/serve.ts). Null when
 * it did not, so the page says where to find the address instead of showing a guessed one.
 */
export function gatewayAddress(): string | null {
  const value =
    document.querySelector<HTMLMetaElement>('meta[name="countersign-gateway-url"]')?.content ?? "";
  // The placeholder stays when no api wrote the page (vite's dev server): not an address either.
  return /^https?:\/\/\S+$/.test(value) ? value : null;
}
