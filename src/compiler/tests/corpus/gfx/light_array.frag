#version 300 es
// agx16 statistics corpus: a uniform vec4[32] indexed in a loop (read from memory as a uniform block)
precision highp float;
uniform vec4 u_lights[32]; uniform int u_n;
out vec4 o;
void main() {
  vec4 acc = vec4(0.0);
  for (int i = 0; i < u_n; i++) acc += u_lights[i];
  o = acc;
}
