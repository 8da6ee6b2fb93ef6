//! Temporary skeleton: the real bindings replace this.
use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_name = parseSession)]
pub fn parse_session(_source: JsValue, _options: JsValue) -> Result<JsValue, JsValue> {
    Err(js_sys::Error::new("not yet").into())
}
#[wasm_bindgen(js_name = migrate)]
pub fn migrate(_source: JsValue) -> Result<JsValue, JsValue> {
    Err(js_sys::Error::new("not yet").into())
}
#[wasm_bindgen(js_name = getTree)]
pub fn get_tree(_source: JsValue) -> Result<JsValue, JsValue> {
    Err(js_sys::Error::new("not yet").into())
}
#[wasm_bindgen(js_name = buildSessionContext)]
pub fn build_session_context(_source: JsValue, _leaf_id: JsValue) -> Result<JsValue, JsValue> {
    Err(js_sys::Error::new("not yet").into())
}
