// The RFMS desk: the arm in 3D, its state, moves, signals and log, and its commands. A client of
// the Foxglove WebSocket protocol on the port that served this page: it subscribes to /desk, one
// JSON message per display period (view/desk_message.hpp), and draws what it says. Commands go to
// the view's API (view/desk_api.hpp): stop for anyone, the operator's with the token of the
// page's address (?token=...).
import * as THREE from "three";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);

// What the page drew last, for tests and for anyone curious: the period and the joint angles of
// the pose on screen.
window.rfmsDesk = { period: null, angles: null, rtstate: "", pictures: 0 };

// ---- the 3D view -------------------------------------------------------------------------------
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
$("scene").appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xe8ecef);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 20);
camera.up.set(0, 0, 1); // the robot's base frame has z up
camera.position.set(0.9, -0.9, 0.55);
camera.lookAt(0.15, -0.1, 0);
scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(1, -1, 2);
scene.add(sun);
const grid = new THREE.GridHelper(1.2, 12, 0x999999, 0xcccccc);
grid.rotation.x = Math.PI / 2;
grid.position.z = -0.25;
scene.add(grid);
scene.add(new THREE.AxesHelper(0.1));

function resize() {
  const box = $("scene").getBoundingClientRect();
  renderer.setSize(box.width, box.height);
  camera.aspect = box.width / Math.max(1, box.height);
  camera.updateProjectionMatrix();
}
window.addEventListener("resize", resize);
resize();

// Foxglove's primitives in three.js: unit shapes scaled by the primitive's size. A cylinder's
// axis is its pose's z, three.js's is y: the unit geometry is turned once.
const unitCylinder = new THREE.CylinderGeometry(0.5, 0.5, 1, 24).rotateX(Math.PI / 2);
const unitBox = new THREE.BoxGeometry(1, 1, 1);
const unitSphere = new THREE.SphereGeometry(0.5, 20, 14);
const materials = new Map();
function material(c) {
  const key = [c.r, c.g, c.b, c.a].map((v) => (v ?? 0).toFixed(3)).join(",");
  if (!materials.has(key))
    materials.set(key, new THREE.MeshStandardMaterial({ color: new THREE.Color(c.r ?? 0, c.g ?? 0, c.b ?? 0),
      transparent: (c.a ?? 1) < 1, opacity: c.a ?? 1, roughness: 0.6 }));
  return materials.get(key);
}
const vec = (v) => new THREE.Vector3(v?.x ?? 0, v?.y ?? 0, v?.z ?? 0);
const quat = (q) => new THREE.Quaternion(q?.x ?? 0, q?.y ?? 0, q?.z ?? 0, q?.w ?? 1);

// One group per entity id; its meshes are reused while their count stays the same.
const entities = new Map();
function drawEntity(e) {
  let g = entities.get(e.id);
  if (!g) {
    g = new THREE.Group();
    entities.set(e.id, g);
    scene.add(g);
  }
  const shapes = [];
  for (const c of e.cylinders || []) shapes.push([unitCylinder, c]);
  for (const c of e.cubes || []) shapes.push([unitBox, c]);
  for (const c of e.spheres || []) shapes.push([unitSphere, c]);
  const meshes = g.children.filter((m) => m.isMesh);
  if (meshes.length !== shapes.length) {
    g.clear();
    for (const [geometry, p] of shapes) g.add(new THREE.Mesh(geometry, material(p.color || {})));
  }
  g.children.filter((m) => m.isMesh).forEach((m, i) => {
    const p = shapes[i][1];
    m.position.copy(vec(p.pose?.position));
    m.quaternion.copy(quat(p.pose?.orientation));
    m.scale.copy(vec(p.size));
    m.material = material(p.color || {});
  });
  for (const a of g.children.filter((m) => m.type === "ArrowHelper")) g.remove(a);
  for (const a of e.arrows || []) {
    const dir = new THREE.Vector3(1, 0, 0).applyQuaternion(quat(a.pose?.orientation));
    const length = (a.shaft_length ?? 0) + (a.head_length ?? 0);
    const c = a.color || {};
    g.add(new THREE.ArrowHelper(dir, vec(a.pose?.position), length, new THREE.Color(c.r ?? 1, c.g ?? 0, c.b ?? 0),
      a.head_length ?? 0.02, a.head_diameter ?? 0.01));
  }
}

// The frames the page marks: where the arm is told to be (setpoint), where the running move goes
// (target), the world model's positions and transforms (from the supervisor's status), and T6's
// trail.
const setpointAxes = new THREE.AxesHelper(0.05);
scene.add(setpointAxes);
const targetAxes = new THREE.AxesHelper(0.08);
targetAxes.visible = false;
scene.add(targetAxes);
const worldAxes = new Map(); // "position/above" -> its axes
function placeAxes(axes, f) {
  axes.position.copy(vec(f.translation));
  axes.quaternion.copy(quat(f.rotation));
}
const TRAIL = 600;
const trail = new Float32Array(TRAIL * 3);
let trailLength = 0;
const trailGeometry = new THREE.BufferGeometry();
trailGeometry.setAttribute("position", new THREE.BufferAttribute(trail, 3));
scene.add(new THREE.Line(trailGeometry, new THREE.LineBasicMaterial({ color: 0x2255cc })));

function drawFrames(frames) {
  let target = false;
  const world = new Set();
  for (const f of frames.transforms || []) {
    const id = f.child_frame_id;
    if (id === "setpoint") placeAxes(setpointAxes, f);
    if (id === "target") {
      placeAxes(targetAxes, f);
      target = true;
    }
    if (id.startsWith("position/") || id.startsWith("transform/")) {
      if (!worldAxes.has(id)) {
        const axes = new THREE.AxesHelper(0.03);
        worldAxes.set(id, axes);
        scene.add(axes);
      }
      placeAxes(worldAxes.get(id), f);
      world.add(id);
    }
    if (f.child_frame_id === "t6") {
      const p = vec(f.translation);
      if (trailLength === TRAIL) trail.copyWithin(0, 3);
      else trailLength++;
      trail.set([p.x, p.y, p.z], (trailLength - 1) * 3);
      trailGeometry.setDrawRange(0, trailLength);
      trailGeometry.attributes.position.needsUpdate = true;
    }
  }
  targetAxes.visible = target;
  for (const [id, axes] of worldAxes) axes.visible = world.has(id); // a forgotten name goes
}

// ---- state, moves, log, signals -------------------------------------------------------------------
const moves = new Map();
let lastLine = 0; // the n of the last line shown
function showLine(l) {
  if (l.n <= lastLine) return;
  lastLine = l.n;
  const li = document.createElement("li");
  li.className = l.level;
  li.textContent = `${l.name ? l.name + ": " : ""}${l.text}`;
  $("log").prepend(li);
  while ($("log").children.length > 200) $("log").lastChild.remove();
  // The supervisor's words (supervisor/shell/background_loop.cpp): "period K: move #N started".
  const m = /^period (\d+): move #(\d+) (started|completed|aborted)/.exec(l.text);
  if (m) moves.set(m[2], `#${m[2]} ${m[3]} at period ${m[1]}`);
  if (/: EMGCY: /.test(l.text)) {
    $("emergency").hidden = false;
    $("emergency").textContent = l.text;
  }
  if (/: state (CALIB|HOLD|FREE|IDLE)$/.test(l.text)) $("emergency").hidden = true;
}
// The running move's progress, from the supervisor's status (null between moves), and how many
// wait behind it.
function showMoves(running, unended) {
  const items = [...moves.entries()].slice(-12).map(([id, t]) => {
    const li = document.createElement("li");
    li.textContent = t;
    if (running && String(running.id) === id) {
      li.textContent += ` — ${running.position} by ${running.motion}, ` +
        `${running.elapsed_s.toFixed(1)} of ${running.duration_s.toFixed(1)} s`;
      li.className = "running";
    }
    return li;
  });
  const waiting = (unended || 0) - (running ? 1 : 0);
  if (waiting > 0) {
    const li = document.createElement("li");
    li.textContent = `${waiting} more queued`;
    items.push(li);
  }
  $("moves").replaceChildren(...items);
}

const PLOTTED = 300; // samples: 5 s at 60 a second
const series = new Map();
const colours = ["#c33", "#393", "#33c", "#c90", "#909", "#099", "#666", "#a52"];
function plot(signals) {
  for (const name of [...series.keys()]) if (!(name in signals)) series.delete(name);
  const c = $("plot").getContext("2d");
  const { width, height } = $("plot");
  c.clearRect(0, 0, width, height);
  let lo = Infinity, hi = -Infinity;
  for (const s of series.values()) for (const v of s) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!(hi > lo)) { hi = (isFinite(hi) ? hi : 0) + 1e-9; lo = hi - 2e-9; }
  c.strokeStyle = "#ddd";
  c.beginPath(); c.moveTo(0, height / 2); c.lineTo(width, height / 2); c.stroke();
  let i = 0;
  const legend = [];
  for (const [name, s] of series) {
    const colour = colours[i++ % colours.length];
    c.strokeStyle = colour;
    c.beginPath();
    s.forEach((v, k) => {
      if (v === null) return;
      const x = (k / (PLOTTED - 1)) * width, y = height - ((v - lo) / (hi - lo)) * height;
      k === 0 ? c.moveTo(x, y) : c.lineTo(x, y);
    });
    c.stroke();
    legend.push(`<span style="color:${colour}">${name} ${s.length && s[s.length - 1] !== null ? s[s.length - 1].toExponential(2) : "—"}</span>`);
  }
  $("legend").innerHTML = legend.join("") + `<span>[${lo.toExponential(1)}, ${hi.toExponential(1)}]</span>`;
}

// Messages are taken as they come; the scene is drawn once a screen refresh, from the newest, so
// that a slow renderer (software WebGL) skips pictures instead of falling behind.
let newest = null;
let signals = {};
function take(d) {
  for (const l of d.lines || []) showLine(l);
  for (const [name, v] of Object.entries(d.signals || {})) {
    if (!series.has(name)) series.set(name, []);
    const s = series.get(name);
    s.push(v);
    if (s.length > PLOTTED) s.shift();
  }
  signals = d.signals || {};
  newest = d;
}
// A renderer slower than the screen (software WebGL) draws less often, leaving the page time to
// take the messages as they come.
let nextDraw = 0;
function draw(now) {
  requestAnimationFrame(draw);
  if (!newest || now < nextDraw) return;
  const d = newest;
  newest = null;
  const started = performance.now();
  for (const e of d.scene.entities || []) drawEntity(e);
  drawFrames(d.frames);
  showMoves(d.move, d.unended);
  $("rtstate").textContent = d.rtstate || "—";
  $("rtstate").className = `badge ${d.rtstate}`;
  $("period").textContent = `period ${d.period}, ${d.time_s.toFixed(3)} s`;
  plot(signals);
  renderer.render(scene, camera);
  nextDraw = now + 2 * (performance.now() - started);
  window.rfmsDesk = {
    period: d.period, angles: d.angles, rtstate: d.rtstate, move: d.move, unended: d.unended,
    target: targetAxes.visible,
    worldFrames: [...worldAxes.entries()].filter(([, a]) => a.visible).map(([id]) => id),
    pictures: window.rfmsDesk.pictures + 1,
  };
}
requestAnimationFrame(draw);

// ---- the Foxglove protocol: subscribe to /desk, read its messages -------------------------------
function connect() {
  // With the page's token, the server keeps a viewer slot for this page however many others are open.
  const token = new URLSearchParams(location.search).get("token");
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  const ws = new WebSocket(`ws://${location.host}/${query}`, ["foxglove.websocket.v1"]);
  ws.binaryType = "arraybuffer";
  const DESK = 1; // this page's subscription id
  ws.onopen = () => { $("link").textContent = "live"; $("link").className = "badge ok"; };
  ws.onclose = () => {
    $("link").textContent = "disconnected: retrying";
    $("link").className = "badge";
    setTimeout(connect, 1000);
  };
  ws.onmessage = (event) => {
    if (typeof event.data === "string") {
      const m = JSON.parse(event.data);
      if (m.op === "advertise")
        for (const c of m.channels)
          if (c.topic === "/desk") ws.send(JSON.stringify({ op: "subscribe", subscriptions: [{ id: DESK, channelId: c.id }] }));
      if (m.op === "status" && m.level === 2) $("answer").textContent = `server: ${m.message}`;
      return;
    }
    const v = new DataView(event.data);
    if (v.getUint8(0) !== 1 || v.getUint32(1, true) !== DESK) return;
    take(JSON.parse(new TextDecoder().decode(new Uint8Array(event.data, 13))));
  };
}
connect();

// ---- commands -----------------------------------------------------------------------------------
async function command(path, body) {
  const r = await fetch(`/api/${path}`, { method: "POST", headers: { "X-RFMS-Token": token },
    body: body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body) });
  const answer = await r.json().catch(() => ({}));
  $("answer").textContent = `${path}: ${r.status} ${answer.error || "done"}`;
  return r.status;
}
window.rfmsCommand = command;
$("stop").onclick = () => command("stop");
$("calibrate").onclick = () => command("calibrate");
$("run").onclick = () => command("task", $("task").value);
for (let j = 1; j <= 6; ++j)
  for (const d of [-1, 1]) {
    const b = document.createElement("button");
    b.textContent = `${j}${d > 0 ? "+" : "−"}`;
    b.id = `jog${j}${d > 0 ? "plus" : "minus"}`;
    b.title = `joint ${j}, 1 degree ${d > 0 ? "up" : "down"}`;
    b.onclick = () => command("jog", `jog ${j} ${d > 0 ? "+" : "-"} angle 1`);
    $("jog").appendChild(b);
  }
$("watch").onsubmit = (e) => {
  e.preventDefault();
  command("watch", { signals: $("signals").value.split(",").map((s) => s.trim()).filter((s) => s) });
};
fetch("/api/info").then((r) => r.json()).then((i) => {
  $("operator-note").textContent = !i.operator ? "rfms-view was started without an operator key: commands are off."
    : token ? "" : "open the address rfms-view printed (with its token) to command the arm.";
  $("stop").disabled = !i.stop;
});
