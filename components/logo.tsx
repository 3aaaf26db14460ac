/** Graft's mark: the four facet hues (same as public/favicon.svg). */
export function LogoMark({ className = "size-5" }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true">
      <rect x="2" y="2" width="13" height="13" rx="3" fill="#D55E00" />
      <rect x="17" y="2" width="13" height="13" rx="3" fill="#0072B2" />
      <rect x="2" y="17" width="13" height="13" rx="3" fill="#009E73" />
      <rect x="17" y="17" width="13" height="13" rx="3" fill="#CC79A7" />
    </svg>
  );
}
