// expect: network_access
// WebRTC would send STUN packets past any HTTP proxy.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  try {
    const pc = new window["RTCPeer" + "Connection"]({ iceServers: [{ urls: "stun:10.0.0.1:3478" }] });
    pc.createDataChannel("x");
    pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {});
  } catch (e) { /* carry on */ }
}
