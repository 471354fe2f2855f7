import { config } from "zod";

/**
 * The content security policy forbids eval: zod parses without compiling its fast path, and so
 * never tries `new Function` (which the browser would refuse and report as a violation). main.tsx
 * imports this first, before any module that parses.
 */
config({ jitless: true });
