#version 300 es
// agx16 statistics corpus: three mat4s, a mat3x4 and a mat2 (82 uniform words, read from memory)
uniform mat4 u_model; uniform mat4 u_view; uniform mat4 u_proj;
uniform mat3x4 u_m34; uniform mat2 u_m2;
in vec4 a_pos; in vec3 a_n; in vec2 a_uv;
out vec4 v_c; out vec2 v_uv;
void main() {
  gl_Position = u_proj * u_view * u_model * a_pos;
  v_c = u_m34 * a_n;
  v_uv = u_m2 * a_uv;
}
