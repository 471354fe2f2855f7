export function Amount({ amount }: { amount: { value: string; currency: string } | null }) {
  return amount ? (
    <span>
      {amount.value} {amount.currency}
    </span>
  ) : (
    <span className="muted">none</span>
  );
}
