#version 310 es
// agx16 GLSL corpus (hand-written): a fall-through case that breaks only on some lanes (dEQP
// shaders.switch.conditional_fall_through_*): the loop GLSL wraps the switch in keeps an early
// break under an if and ends in an unconditional one. Reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a0[i];
    int k = x & 7;
    int t = x >> 3;
    int s = 0;
    switch (k) {
    case 0:
        s = t;
        break;
    case 1:
        s = 2 * t;
        break;
    case 2:
        t = t + 100;
    case 3:
        s = t;
        if (k != 3)
            break;
    default:
        s = s - t * 7;
        break;
    }
    r[i] = s;
}
