#version 310 es
// agx16 GLSL corpus (hand-written): a loop with continue
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int m = a0[i] & 7;
    int s = 0;
    for (int k = 0; k < 16; k++) {
        if ((k & m) == 0)
            continue;
        s += k;
    }
    r[i] = s;
}
