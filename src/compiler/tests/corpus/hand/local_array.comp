#version 310 es
// agx16 GLSL corpus (hand-written): a local array filled in a loop
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int t[4];
    for (int k = 0; k < 4; k++)
        t[k] = a0[i] * (k + 1);
    r[i] = t[1] + t[3];
}
