import type { Metadata, Viewport } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { CollectionButton } from "@/components/collection";
import { FacetLegend } from "@/components/facets";
import { LogoMark } from "@/components/logo";
import { SiteNav } from "@/components/site-nav";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Graft", template: "%s · Graft" },
  description: "Facet-aware exploration of scientific literature: problems, methods, results and contributions.",
  icons: { icon: "/favicon.svg" },
};

export const viewport: Viewport = { themeColor: "#ffffff" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col bg-canvas font-sans text-ink antialiased">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:z-50 focus:rounded-md focus:bg-surface focus:px-3 focus:py-2 focus:shadow"
        >
          Skip to content
        </a>
        <header className="sticky top-0 z-30 border-b border-line bg-surface/90 backdrop-blur supports-[backdrop-filter]:bg-surface/80">
          <div className="mx-auto flex h-14 max-w-6xl items-center gap-6 px-4 sm:px-6">
            <Link href="/" className="flex items-center gap-2 text-[1.0625rem] font-semibold tracking-tight">
              <LogoMark />
              Graft
            </Link>
            <SiteNav />
            <div className="ml-auto">
              <CollectionButton />
            </div>
          </div>
        </header>
        <Providers>
          <main id="main" className="flex-1">
            {children}
          </main>
        </Providers>
        <footer className="mt-16 border-t border-line bg-surface">
          <div className="mx-auto flex max-w-6xl flex-col gap-3 px-4 py-6 text-xs text-ink-faint sm:flex-row sm:items-center sm:justify-between sm:px-6">
            <p>
              <span className="font-medium text-ink-muted">Graft</span> · facet-aware exploration of scientific literature
            </p>
            <FacetLegend />
          </div>
        </footer>
      </body>
    </html>
  );
}
