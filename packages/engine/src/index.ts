/**
 * `@ctxkit/engine`: the context steps composed into what a harness calls before and after every model request
 * (`ContextEngine.prepare` / `observe`), with every effect — the store, the model, HTTP, the clock — behind an
 * Effect service, so each part is swapped with a `Layer`.
 *
 * @since 0.1.0
 */
export {
  discoverWindow,
  type DiscoverWindowOptions,
  DISCOVERY_REQUEST_TIMEOUT,
  DISCOVERY_TIMEOUT
} from "./DiscoverWindow.ts"
export { type CatalogWindow, catalogWindow, WINDOW_CATALOG_VERSION } from "./WindowCatalog.ts"
export { type WindowAnswer, WindowSource } from "./WindowSource.ts"
