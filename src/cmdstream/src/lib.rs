//! G16 command streams, state records, descriptors and image layouts
