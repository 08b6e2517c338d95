//! bindgen bindings over Mesa's NIR and Gallium headers
