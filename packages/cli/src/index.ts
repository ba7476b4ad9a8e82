/**
 * The `ctxkit` command's library side: the command tree, its runner and the HTML report.
 *
 * @since 0.1.0
 */
export { renderReportHtml } from "./HtmlReport.ts"
