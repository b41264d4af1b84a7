// arrow.js — a filled arrowhead on a canvas, for the arrows the Trace view
// draws: the critical path's legs between tracks (critpath.js) and the
// selected event's flows (trace.js).

// The head at (x, y), pointing along angle ang (radians, canvas axes), len
// px long, its sides spread radians off the shaft; in ctx's fillStyle.
export function arrowhead(ctx, x, y, ang, len, spread) {
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.lineTo(x - len * Math.cos(ang - spread), y - len * Math.sin(ang - spread));
  ctx.lineTo(x - len * Math.cos(ang + spread), y - len * Math.sin(ang + spread));
  ctx.closePath();
  ctx.fill();
}
