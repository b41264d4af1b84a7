// drawfail.js — the one place where a view's drawing fails visibly.  A view
// that throws while it draws (a damaged or hand-edited page's column, whose
// decode.js error names the blob; an /api request of `memlens serve` that
// failed, source.js) shows, where it would be, one line that says why,
// styled like the page's notes, and the error goes to the console; the rest
// of the page keeps working (another tab, the view's other panels).
//
// Who draws through it: tabs.js's router, every tab's show (a tab that fails
// says it in its pane); app.js, each panel of the Memory view (a panel that
// fails says it in its place, the others still draw), and its last net, the
// errors no drawing awaited (an event handler's, a timer's), said on the tab
// shown without hiding it.

export const DRAW_FAILED = "This view could not be drawn: ";
export const PART_FAILED = "Part of this view could not be drawn: ";

// The line for an error (an Error, or whatever was thrown).
export function drawFailText(e, prefix = DRAW_FAILED) {
  const m = e != null && typeof e === "object" && "message" in e ? String(e.message) : String(e);
  return prefix + (m || "an error without a message");
}

function failLine(el) {
  for (const c of el.children) if (c.classList.contains("view-error")) return c;
  return null;
}

// Says e in el: its line (a child of class view-error: the first, or after a
// panel's title bar), and el marked draw-failed (style.css then hides what
// else el holds, all but the title bar: a stale or half-drawn view says
// nothing true).  keep: el's content stays shown, and the line says "part of".
export function sayDrawFailed(el, e, keep = false) {
  if (!el) return;
  let line = failLine(el);
  if (!line) {
    line = el.ownerDocument.createElement("div");
    line.className = "notes-important view-error";
    line.setAttribute("role", "alert");
    const first = el.firstElementChild;
    if (first && first.classList.contains("bar")) first.after(line);
    else el.prepend(line);
  }
  line.textContent = drawFailText(e, keep ? PART_FAILED : DRAW_FAILED);
  if (!keep) el.classList.add("draw-failed");
}

// Takes el's line away (a draw of it begins again); returns the line's text ("" if none).
export function clearDrawFailed(el) {
  if (!el) return "";
  const line = failLine(el), text = line ? line.textContent : "";
  if (line) line.remove();
  el.classList.remove("draw-failed");
  return text;
}

// Runs draw() (sync or async) for el: el's line of an earlier failure goes,
// and a failure now is said in el, and logged unless el said the same before
// (each zoom of a view that cannot draw would log it again).  Resolves to what
// draw returns, or undefined when it failed: it never rejects, so that
// whoever asked for the drawing (a tab switch, a zoom) goes on.
export async function drawOrSay(el, draw) {
  const before = clearDrawFailed(el);
  try {
    return await draw();
  } catch (e) {
    if (drawFailText(e) !== before) console.error(e);
    sayDrawFailed(el, e);
    return undefined;
  }
}

// fn, drawing into el through drawOrSay: (...args) => drawOrSay(el, () => fn(...args)).
export function drawsInto(el, fn) {
  return (...args) => drawOrSay(el, () => fn(...args));
}
