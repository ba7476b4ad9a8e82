/**
 * The context report as one self-contained HTML page.
 *
 * @since 0.1.0
 */
import type { ContextReport } from "@ctxkit/governor"

/**
 * What the page says about where the report came from.
 *
 * @category models
 * @since 0.1.0
 */
export interface HtmlReportOptions {
  /** The page title; default "ctxkit context report". */
  readonly title?: string | undefined
  /** Where the conversation came from (a file path), shown under the title. */
  readonly source?: string | undefined
}

/**
 * Renders a context report as one self-contained HTML page (no network, no external files).
 *
 * @example
 * ```ts
 * import { renderReportHtml } from "@ctxkit/cli"
 * import type { ContextReport } from "@ctxkit/governor"
 *
 * declare const report: ContextReport
 * const page: string = renderReportHtml(report)
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const renderReportHtml = (report: ContextReport, options: HtmlReportOptions = {}): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${
    options.title ?? "ctxkit context report"
  }</title></head><body><pre>${
    JSON.stringify(report, null, 2).replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"))
  }</pre></body></html>`
