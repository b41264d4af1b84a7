// tip.js — where a hover tooltip goes: beside the pointer, inside the window
// (a tip is position: fixed, a child of the body, so that no scrolling pane,
// panel edge or later panel cuts it),
// and never over what it describes: the hovered bar's box is avoided, so that
// its outline is not drawn through the tip's title.

// The tip's top-left (client px) for a tip w x h, the pointer at (x, y), a
// window vw x vh, avoiding the box avoid {left, top, right, bottom} (or
// null): below the pointer and the box when it fits, else above them, else
// beside the box (right, then left), else wherever it is least cut (clamped
// into the window).  Pure, for tests.
export function tipPosition(w, h, x, y, vw, vh, avoid, gap = 12) {
  const M = 4, box = avoid || { left: x, right: x, top: y, bottom: y };
  const clampX = (l) => Math.max(M, Math.min(l, vw - w - M));
  const clampY = (t) => Math.max(M, Math.min(t, vh - h - M));
  let left = x + gap;
  if (left + w > vw - M) left = x - gap - w;
  left = clampX(left);
  const below = Math.max(y, box.bottom) + gap, above = Math.min(y, box.top) - gap - h;
  if (below + h <= vh - M) return { left, top: below };
  if (above >= M) return { left, top: above };
  // neither below nor above: beside the box, at the pointer's height
  const top = clampY(y - h / 2);
  if (box.right + gap + w <= vw - M) return { left: box.right + gap, top };
  if (box.left - gap - w >= M) return { left: box.left - gap - w, top };
  return { left, top: clampY(vh - below >= above + h ? below : above) };
}

// Shows tip (an element of class "tip") at the pointer of mouse event e,
// avoiding the element-relative box avoid of element el ({x, y, w, h} in
// el's CSS px, or null).
export function placeTip(tip, e, el, avoid) {
  // out of the panes: a sticky or scrolling ancestor would paint later panels over it
  if (tip.parentElement !== document.body) document.body.appendChild(tip);
  tip.classList.add("fixed");
  tip.hidden = false;
  let box = null;
  if (avoid && el) {
    const r = el.getBoundingClientRect();
    box = { left: r.left + avoid.x, right: r.left + avoid.x + avoid.w, top: r.top + avoid.y, bottom: r.top + avoid.y + avoid.h };
  }
  const p = tipPosition(tip.offsetWidth, tip.offsetHeight, e.clientX, e.clientY, window.innerWidth, window.innerHeight, box);
  tip.style.left = p.left + "px";
  tip.style.top = p.top + "px";
}
