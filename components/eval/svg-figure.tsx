/**
 * An SVG chart produced by lib/eval/svg.ts (the same function that writes reports/*.svg). The
 * markup is generated from numbers with every label XML-escaped, so inlining it is safe.
 */
export function SvgFigure({ svg, caption }: { svg: string; caption: string }) {
  return (
    <figure className="rounded-lg border border-line bg-surface p-3">
      <div className="overflow-x-auto [&_svg]:h-auto [&_svg]:max-w-full" dangerouslySetInnerHTML={{ __html: svg }} />
      <figcaption className="mt-2 text-xs text-ink-faint">{caption}</figcaption>
    </figure>
  );
}
