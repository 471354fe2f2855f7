/** Order comparisons on exact scaled decimals (see decimal.ts). */
export type NumericOp = "gt" | "gte" | "lt" | "lte";

export function compareScaled(op: NumericOp | "eq", value: bigint, threshold: bigint): boolean {
  switch (op) {
    case "gt":
      return value > threshold;
    case "gte":
      return value >= threshold;
    case "lt":
      return value < threshold;
    case "lte":
      return value <= threshold;
    case "eq":
      return value === threshold;
  }
}
