/**
 * Number formatting for markers, reasons and diagnostics: deterministic, never dependent on the host's locale.
 *
 * @internal
 */

const group = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/**
 * A count or a token figure as people read it: `4,096`, `1,843.2`, `-12`. At most `decimals` decimals (default
 * 1), trailing zeros dropped; non-finite values as `NaN` / `Infinity`.
 */
export const formatNumber = (n: number, decimals = 1): string => {
  if (!Number.isFinite(n)) return String(n)
  const scale = 10 ** decimals
  const rounded = Math.round(Math.abs(n) * scale) / scale
  const [whole = "0", fraction] = rounded.toFixed(decimals).split(".")
  const trimmed = fraction === undefined ? "" : fraction.replace(/0+$/, "")
  const sign = n < 0 && rounded !== 0 ? "-" : ""
  return `${sign}${group(whole)}${trimmed.length > 0 ? `.${trimmed}` : ""}`
}

/** `1 line`, `3 lines`, `1,204 characters`. */
export const plural = (n: number, singular: string, pluralForm = `${singular}s`): string =>
  `${formatNumber(n, 0)} ${n === 1 ? singular : pluralForm}`
