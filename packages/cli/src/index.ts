/**
 * The `ctxkit` command's library side: the command tree, its runner and the HTML report.
 *
 * @since 0.1.0
 */
export { type HtmlReportOptions, renderReportHtml } from "./HtmlReport.ts"
