#version 300 es
// agx16 statistics corpus: many built-ins on vec4 uniforms in a loop, texture components through abs into min/max
precision highp float;
uniform vec4 u_a; uniform vec4 u_b; uniform vec4 u_c; uniform float u_t;
uniform sampler2D s;
in vec2 v_uv;
out vec4 o;
void main() {
  vec4 acc = u_a;
  vec4 t = texture(s, v_uv);
  for (int i = 0; i < 4; i++) {
    acc = mix(acc, u_b, 0.5) + sin(acc) * cos(u_c) + pow(abs(acc), vec4(1.5)) + exp(u_c * u_t);
    acc = clamp(acc, -10.0, 10.0) + smoothstep(0.0, 1.0, acc) + step(u_b, acc) + fract(acc) + mod(acc, u_c + 2.0);
  }
  o = acc + vec4(max(abs(t.x), 0.5), min(-abs(t.y), u_t), normalize(acc.xy) + length(acc) + atan(acc.z, acc.w));
}
