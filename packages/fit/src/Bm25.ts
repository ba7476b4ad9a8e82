/**
 * A lexical relevance scorer (Okapi BM25), the default relevance of memory and lorebook blocks in the
 * `vector-recall` strategy when they carry no `meta.relevance`.
 *
 * @since 0.1.0
 */

/**
 * BM25's term-frequency saturation, `k1`: 1.2.
 *
 * @example
 * ```ts
 * import { BM25_K1 } from "@ctxkit/fit/Bm25"
 *
 * BM25_K1 // 1.2
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const BM25_K1 = 1.2

/**
 * BM25's document-length normalization, `b`: 0.75.
 *
 * @example
 * ```ts
 * import { BM25_B } from "@ctxkit/fit/Bm25"
 *
 * BM25_B // 0.75
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const BM25_B = 0.75

const TERM = /[\p{L}\p{N}]+/gu

/**
 * The terms of a text as BM25 sees them: maximal runs of letters and digits (any script), lower-cased. Text
 * without spaces between words (Chinese, Japanese) makes one term per run.
 *
 * @example
 * ```ts
 * import { bm25Terms } from "@ctxkit/fit/Bm25"
 *
 * bm25Terms("Read the README.md, then run `npm test`!") // ["read", "the", "readme", "md", "then", "run", "npm", "test"]
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const bm25Terms = (text: string): Array<string> =>
  typeof text === "string" ? Array.from(text.toLowerCase().matchAll(TERM), (match) => match[0]) : []

/**
 * Okapi BM25 scores of `documents` for `query`, one per document, ≥ 0, higher meaning more relevant:
 *
 * `score(D) = Σ over distinct query terms t of IDF(t) × f(t, D) × (k1 + 1) / (f(t, D) + k1 × (1 − b + b × |D| / avgdl))`
 *
 * with `IDF(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))` (never negative), `f(t, D)` the count of `t` in `D`,
 * `|D|` its length in terms, `avgdl` the average length, `N` the number of documents and `n(t)` how many contain
 * `t`. Terms are {@link bm25Terms}; `k1` defaults to 1.2 and `b` to 0.75. Linear in the total text length.
 *
 * @example
 * ```ts
 * import { bm25Scores } from "@ctxkit/fit"
 *
 * const [deploy = 0, lunch = 0, vault = 0] = bm25Scores("deploy the staging server", [
 *   "The staging server runs on port 8080; deploy with make deploy.",
 *   "Lunch is at noon.",
 *   "Production server credentials are in the vault."
 * ])
 * deploy > vault && vault > lunch // true
 * lunch // 0
 * ```
 *
 * @category operations
 * @since 0.1.0
 */
export const bm25Scores = (
  query: string,
  documents: ReadonlyArray<string>,
  options: { readonly k1?: number | undefined; readonly b?: number | undefined } = {}
): Array<number> => {
  const k1 = typeof options.k1 === "number" && options.k1 >= 0 && Number.isFinite(options.k1) ? options.k1 : BM25_K1
  const b = typeof options.b === "number" && options.b >= 0 && options.b <= 1 ? options.b : BM25_B
  const docs = Array.isArray(documents) ? documents : []
  const queryTerms = new Set(bm25Terms(query))
  const n = docs.length
  if (n === 0) return []
  // Per document: the frequencies of the query terms only (other terms only count towards its length).
  const frequencies: Array<Map<string, number>> = []
  const lengths: Array<number> = []
  const containing = new Map<string, number>()
  let totalLength = 0
  for (const doc of docs) {
    const terms = bm25Terms(typeof doc === "string" ? doc : "")
    const f = new Map<string, number>()
    for (const term of terms) if (queryTerms.has(term)) f.set(term, (f.get(term) ?? 0) + 1)
    for (const term of f.keys()) containing.set(term, (containing.get(term) ?? 0) + 1)
    frequencies.push(f)
    lengths.push(terms.length)
    totalLength += terms.length
  }
  const avgdl = totalLength / n
  const idf = new Map<string, number>()
  for (const [term, df] of containing) idf.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)))
  return frequencies.map((f, i) => {
    let score = 0
    const norm = avgdl > 0 ? 1 - b + b * ((lengths[i] ?? 0) / avgdl) : 1
    for (const [term, tf] of f) score += (idf.get(term) ?? 0) * (tf * (k1 + 1)) / (tf + k1 * norm)
    return score
  })
}
