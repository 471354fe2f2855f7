import { useEffect, useRef } from "react";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Compartment, EditorState } from "@codemirror/state";
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";

export type { Diagnostic };

// CodeMirror injects its own styles: into a document as <style> elements, which the dashboard's
// content security policy (style-src 'self') refuses, into a shadow root as constructed style
// sheets, which it allows. So the editor lives in a shadow root of its host element.
const theme = EditorView.theme({
  // Always dark text on white, in the dark scheme too: the highlight colours are made for a light page,
  // and the text would otherwise inherit the dark scheme's light grey onto this white.
  "&": { fontSize: "0.9rem", backgroundColor: "#fff", color: "#212529" },
  "&.cm-focused": { outline: "2px solid #1f5fbf" },
  ".cm-scroller": { fontFamily: "ui-monospace, monospace" },
});

/**
 * A CodeMirror 6 editor for JSON or YAML text. Keyboard first: Tab is left to the page (it
 * moves focus in and out, the editor never traps it; indentation follows Enter), the content
 * carries the label people hear, and diagnostics show in the gutter as well as in the page.
 */
export function CodeEditor({
  value,
  onChange,
  mode,
  label,
  readOnly = false,
  diagnostics,
}: {
  value: string;
  onChange: (text: string) => void;
  mode: "json" | "yaml";
  label: string;
  readOnly?: boolean;
  diagnostics?: Diagnostic[];
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const language = useRef(new Compartment());
  const editable = useRef(new Compartment());
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const root = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: "open" });
    const v = new EditorView({
      root,
      parent: root,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          theme,
          // Long lines wrap and the editor grows with its text: no scrolled region without a tab stop.
          EditorView.lineWrapping,
          language.current.of(mode === "json" ? json() : yaml()),
          editable.current.of(EditorState.readOnly.of(readOnly)),
          EditorView.contentAttributes.of({
            "aria-label": label,
            "aria-multiline": "true",
          }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // The view is made once; later props reach it through the effects below.
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);
  useEffect(() => {
    view.current?.dispatch({
      effects: [
        language.current.reconfigure(mode === "json" ? json() : yaml()),
        editable.current.reconfigure(EditorState.readOnly.of(readOnly)),
      ],
    });
  }, [mode, readOnly]);
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const size = v.state.doc.length;
    const inside = (diagnostics ?? []).map((d) => ({
      ...d,
      from: Math.min(d.from, size),
      to: Math.min(Math.max(d.to, d.from), size),
    }));
    v.dispatch(setDiagnostics(v.state, inside));
  }, [diagnostics]);

  return <div className="code-editor" ref={host} data-testid="policy-editor" />;
}
