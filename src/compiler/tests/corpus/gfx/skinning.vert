#version 300 es
// agx16 statistics corpus: skinning with a bone uniform block indexed by the joint attributes
layout(std140) uniform Bones { mat4 bones[32]; };
uniform mat4 u_vp;
in vec4 a_pos; in vec4 a_w; in uvec4 a_j;
out vec4 v_c;
void main() {
  mat4 m = bones[a_j.x] * a_w.x + bones[a_j.y] * a_w.y + bones[a_j.z] * a_w.z + bones[a_j.w] * a_w.w;
  gl_Position = u_vp * m * a_pos;
  v_c = a_w;
}
